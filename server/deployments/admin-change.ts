import { eq } from "drizzle-orm";
import type { z } from "zod";
import { deployments } from "@/db/schema";
import { type AuditSource, recordChange } from "@/server/audit";
import type { Session } from "@/server/auth";
import type { DataContext } from "@/server/frame/data-context";
import { AppError } from "@/server/frame/errors";
import { metrics } from "@/server/observability";
import { presentDeployment } from "./deployments";
import type { adminStatusChangeInputSchema, Deployment } from "./schema";
import { recordStatusChange } from "./status-change";
import { ADMIN_SIGNER, allowedNext, canTransition } from "./view";

/**
 * An admin's change of a deployment's status, by the status machine a worker's signed change goes
 * by, recorded in the history as the admin's with no nonce, since no signed message was spent. It
 * assigns no worker.
 */
export async function changeStatusAsAdmin(
  { db, clock, ...source }: DataContext & AuditSource,
  input: z.output<typeof adminStatusChangeInputSchema>,
  session: Session,
): Promise<Deployment> {
  const now = clock.now();
  const signer = session.via === "wallet" ? session.address : ADMIN_SIGNER;
  const outcome = await db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(deployments)
      .where(eq(deployments.id, input.id))
      .for("update");
    if (!current)
      return {
        refused: new AppError("deployment_not_found", `Deployment ${input.id} not found.`),
      };
    if (!canTransition(current.status, input.status)) {
      const next = allowedNext(current.status);
      return {
        refused: new AppError(
          "transition_not_allowed",
          `A deployment in ${current.status} cannot move to ${input.status}; ${
            next.length > 0 ? `it can move to ${next.join(", ")}` : `${current.status} is final`
          }.`,
        ),
      };
    }
    const recorded = await recordStatusChange(tx, current, {
      status: input.status,
      details: input.deployment_details,
      signer,
      nonce: "",
      at: now,
      detailsField: { code: "validation_failed", field: "deployment_details" },
    });
    if ("updated" in recorded)
      await recordChange(tx, source, {
        at: now,
        action: "deployment.status_changed",
        target: `deployment:${current.id}`,
        before: { status: current.status },
        after: {
          status: input.status,
          ...(input.deployment_details ? { deployment_details: input.deployment_details } : {}),
        },
      });
    return { ...recorded, from: current.status };
  });
  if ("refused" in outcome) throw outcome.refused;
  metrics.deploymentChanges.inc({ from: outcome.from, to: input.status });
  return presentDeployment(outcome.updated);
}
