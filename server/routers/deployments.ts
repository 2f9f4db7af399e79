import {
  createDeployment,
  getDeployment,
  listDeployments,
  updateStatus,
} from "@/server/deployments/deployments";
import {
  createDeploymentInputSchema,
  deploymentIdInputSchema,
  deploymentSchema,
  deploymentWithHistorySchema,
  listDeploymentsInputSchema,
  listDeploymentsOutputSchema,
  nonceInputSchema,
  nonceOutputSchema,
  statusUpdateInputSchema,
} from "@/server/deployments/schema";
import { issueNonce } from "@/server/siwe/nonces";
import { adminProcedure, publicProcedure, router } from "@/server/trpc";

export const deploymentsRouter = router({
  create: adminProcedure
    .input(createDeploymentInputSchema)
    .output(deploymentSchema)
    .mutation(({ ctx, input }) => createDeployment(ctx, input)),

  list: adminProcedure
    .input(listDeploymentsInputSchema)
    .output(listDeploymentsOutputSchema)
    .query(({ ctx, input }) => listDeployments(ctx, input)),

  get: adminProcedure
    .input(deploymentIdInputSchema)
    .output(deploymentWithHistorySchema)
    .query(({ ctx, input }) => getDeployment(ctx, input.id)),

  /** Public: the signed message is the credential. */
  updateStatus: publicProcedure
    .input(statusUpdateInputSchema)
    .output(deploymentSchema)
    .mutation(({ ctx, input }) => updateStatus(ctx, input)),

  nonce: publicProcedure
    .input(nonceInputSchema)
    .output(nonceOutputSchema)
    .mutation(async ({ ctx, input }) => {
      const { nonce, expiresAt } = await issueNonce(ctx, input.user_address);
      return { nonce, user_address: input.user_address, expires_at: expiresAt.toISOString() };
    }),
});
