import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { type DeploymentRow, deploymentStatusHistory, deployments } from "@/db/schema";
import { AppError, type ProblemCode } from "@/server/frame/errors";
import { emitEvent } from "@/server/outbox";
import { presentDeployment, recentHistory } from "./deployments";
import { DETAILS_MAX_BYTES, type DeploymentStatus, jsonBytes } from "./view";

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
  /** How a refusal of the details names them: the signed statement's field, or the body's. */
  detailsField: { code: ProblemCode; field: string };
};

/**
 * How many of its latest changes `deployment.status_changed` carries: a redeploy's whole cycle
 * (pick_up to generated_proof) and the change before it. With every change's details within
 * DETAILS_MAX_BYTES, the event stays well inside the outbox's bound on a body.
 */
const EVENT_HISTORY_LENGTH = 5;

/**
 * Writes an allowed change to the locked row `current` in the caller's transaction: the row, its
 * history entry and, for a new status, the `deployment.status_changed` event (its data read only
 * when an endpoint subscribes). Shared by a worker's signed change and an admin's. Details that
 * would be over their bound once merged are refused with nothing written: the merge is decided
 * here, on the row the caller locked, so two concurrent changes cannot both pass the check.
 */
export async function recordStatusChange(
  tx: Db,
  current: DeploymentRow,
  change: StatusChange,
): Promise<{ updated: DeploymentRow } | { refused: AppError }> {
  const merged = { ...current.deploymentDetails, ...change.details };
  const refused = detailsRefusal(current.deploymentDetails, merged, change.detailsField);
  if (refused) return { refused };
  const [updated] = await tx
    .update(deployments)
    .set({
      status: change.status,
      deploymentDetails: merged,
      ...change.assign,
      updatedAt: change.at,
    })
    .where(eq(deployments.id, current.id))
    .returning();
  const row = updated as DeploymentRow;
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
      data: async () => ({
        ...presentDeployment(row),
        from_status: current.status,
        to_status: change.status,
        ...(await recentHistory(tx, current.id, EVENT_HISTORY_LENGTH)),
      }),
    });
  return { updated: row };
}

/**
 * Why the merged details may not be stored. Details stored before the bound existed may stay over
 * it: a change that does not make them larger passes, so such a deployment can still move on.
 */
function detailsRefusal(
  before: Record<string, unknown>,
  merged: Record<string, unknown>,
  { code, field }: StatusChange["detailsField"],
): AppError | undefined {
  const bytes = jsonBytes(merged);
  if (bytes <= DETAILS_MAX_BYTES || bytes <= jsonBytes(before)) return undefined;
  const detail = `would make the deployment's details ${bytes} bytes as JSON, over their bound of ${DETAILS_MAX_BYTES} bytes (${DETAILS_MAX_BYTES / 1024} KiB)`;
  return new AppError(
    code,
    `${field} ${detail}; the deployment was not changed. Send fewer or smaller details, or set keys no longer needed to null.`,
    { errors: [{ field, detail }] },
  );
}
