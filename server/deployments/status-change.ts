import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { type DeploymentRow, deploymentStatusHistory, deployments } from "@/db/schema";
import type { Clock } from "@/server/kit/clock";
import { emitEvent } from "@/server/webhooks";
import { getDeployment } from "./deployments";
import type { DeploymentStatus } from "./view";

/** A change of a deployment's status as recorded: by whom, under which nonce, with what. */
export type StatusChange = {
  status: DeploymentStatus;
  details: Record<string, unknown> | undefined;
  /** The history's signer: the worker's or admin wallet's address, or `admin` for the key. */
  signer: string;
  /** The signed message's nonce; empty for an admin's change, which spends none. */
  nonce: string;
  assign?: Partial<Pick<DeploymentRow, "workerName" | "workerUuid" | "workerAddress">>;
  at: Date;
};

/**
 * Writes an allowed change to the locked row `current` in the caller's transaction: the row, its
 * history entry and, for a new status, the `deployment.status_changed` event (its data read only
 * when an endpoint subscribes). Shared by a worker's signed change and an admin's.
 */
export async function recordStatusChange(
  tx: Db,
  clock: Clock,
  current: DeploymentRow,
  change: StatusChange,
): Promise<DeploymentRow> {
  const [updated] = await tx
    .update(deployments)
    .set({
      status: change.status,
      deploymentDetails: { ...current.deploymentDetails, ...change.details },
      ...change.assign,
      updatedAt: change.at,
    })
    .where(eq(deployments.id, current.id))
    .returning();
  await tx.insert(deploymentStatusHistory).values({
    deploymentId: current.id,
    fromStatus: current.status,
    toStatus: change.status,
    signerAddress: change.signer,
    nonce: change.nonce,
    deploymentDetails: change.details ?? null,
    createdAt: change.at,
  });
  if (current.status !== change.status)
    await emitEvent(tx, {
      type: "deployment.status_changed",
      at: change.at,
      data: () => getDeployment({ db: tx, clock }, current.id),
    });
  return updated as DeploymentRow;
}
