"use client";

import { trpc } from "./trpc";

/**
 * The signed-in person's role, as the session says it, and what it lets them change: operators
 * and owners change agents, keys, quotas, prices, webhooks and deployments; owners, admins too.
 * Both are false until the session is read, so that no write control flashes before a viewer.
 */
export function useRole() {
  const session = trpc.auth.session.useQuery();
  const role = session.data?.role;
  return {
    /** `undefined` while the session is read (or when it could not be). */
    role,
    canOperate: role === "operator" || role === "owner",
    isOwner: role === "owner",
  };
}
