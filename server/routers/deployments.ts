import type { Session } from "@/server/auth";
import {
  adminStatusChangeInputSchema,
  changeOptions,
  changeOptionsInputSchema,
  changeOptionsSchema,
  changeStatusAsAdmin,
  createDeployment,
  createDeploymentInputSchema,
  deploymentIdInputSchema,
  deploymentSchema,
  deploymentWithHistorySchema,
  getDeployment,
  listDeployments,
  listDeploymentsInputSchema,
  listDeploymentsOutputSchema,
  statusUpdateInputSchema,
  updateStatus,
} from "@/server/deployments";
import { adminProcedure, publicProcedure, router, walletProcedure } from "@/server/trpc";

/** The owner a wallet session is limited to; undefined for admins (no limit). */
function ownerScope(session: Session): string | undefined {
  return session.role === "admin" ? undefined : session.address;
}

export const deploymentsRouter = router({
  create: adminProcedure
    .input(createDeploymentInputSchema)
    .output(deploymentSchema)
    .mutation(({ ctx, input }) => createDeployment(ctx, input)),

  /** Admins see all deployments; a signed-in wallet sees its own. */
  list: walletProcedure
    .input(listDeploymentsInputSchema)
    .output(listDeploymentsOutputSchema)
    .query(({ ctx, input }) => listDeployments(ctx, input, ownerScope(ctx.session))),

  get: walletProcedure
    .input(deploymentIdInputSchema)
    .output(deploymentWithHistorySchema)
    .query(({ ctx, input }) => getDeployment(ctx, input.id, ownerScope(ctx.session))),

  /** The changes a wallet could sign on a deployment, and whether they need a Privy token. */
  changeOptions: walletProcedure
    .input(changeOptionsInputSchema)
    .output(changeOptionsSchema)
    .query(({ ctx, input }) => changeOptions(ctx, input, ctx.session)),

  /** An admin's change (cancel, fail, move on), recorded in the history as the admin's. */
  changeStatus: adminProcedure
    .input(adminStatusChangeInputSchema)
    .output(deploymentSchema)
    .mutation(({ ctx, input }) => changeStatusAsAdmin(ctx, input, ctx.session)),

  /** Public: the signed message is the credential. */
  updateStatus: publicProcedure
    .input(statusUpdateInputSchema)
    .output(deploymentSchema)
    .mutation(({ ctx, input }) => updateStatus(ctx, input)),
});
