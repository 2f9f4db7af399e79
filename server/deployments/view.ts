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
