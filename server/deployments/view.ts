// The deployment status machine, shared with the browser: no zod and nothing server-only.

import type { DeploymentStatus } from "@/db/enums";

export { DEPLOYMENT_STATUSES, type DeploymentStatus } from "@/db/enums";

/** `failed` and `cancelled` are final; the same status again is allowed (it updates details). */
const NEXT: Record<DeploymentStatus, readonly DeploymentStatus[]> = {
  init: ["pick_up", "failed", "cancelled"],
  pick_up: ["deploying", "failed", "cancelled"],
  deploying: ["deployed", "failed"],
  deployed: ["generated_proof", "pick_up", "failed"],
  generated_proof: ["pick_up", "failed"],
  failed: [],
  cancelled: [],
};

export const FINAL_STATUSES: readonly DeploymentStatus[] = ["failed", "cancelled"];

export function canTransition(from: DeploymentStatus, to: DeploymentStatus): boolean {
  return from === to ? !FINAL_STATUSES.includes(from) : NEXT[from].includes(to);
}

export function allowedNext(from: DeploymentStatus): readonly DeploymentStatus[] {
  return NEXT[from];
}

/** Who changed a status, in the history, when it was the admin key rather than a wallet. */
export const ADMIN_SIGNER = "admin";

/**
 * The most a deployment's `deployment_details` may hold once a change is merged in, counted as the
 * UTF-8 bytes of its JSON text: each change is kept in the history and sent in events, so the
 * record a worker can grow must stay small.
 */
export const DETAILS_MAX_BYTES = 64 * 1024;

/** How many of its latest changes the deployment's record embeds; the rest are paged. */
export const RECORD_HISTORY_LENGTH = 10;

/** The size `DETAILS_MAX_BYTES` is counted in: the UTF-8 bytes of the value's JSON text. */
export function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}
