import type { Session } from "@/server/auth";
import { isAdmin } from "@/server/auth";
import {
  adminStatusChangeInputSchema,
  changeOptions,
  changeOptionsInputSchema,
  changeOptionsSchema,
  changeStatusAsAdmin,
  createDeployment,
  createDeploymentInputSchema,
  DETAILS_MAX_BYTES,
  deploymentIdInputSchema,
  deploymentSchema,
  deploymentWithHistorySchema,
  getDeployment,
  historyPageInputSchema,
  historyPageSchema,
  listDeployments,
  listDeploymentsInputSchema,
  listDeploymentsOutputSchema,
  listHistory,
  RECORD_HISTORY_LENGTH,
  statusUpdateInputSchema,
  updateStatus,
} from "@/server/deployments";
import { operatorProcedure, publicProcedure, router, walletProcedure } from "@/server/frame/trpc";
import {
  ADMIN,
  adminErrors,
  databaseUnavailable,
  jsonBodyErrors,
  problem,
  rest,
} from "@/server/http";
import * as examples from "./examples-deployments";

/** Worker deployments: the admin's, and the workers' signed status changes. */

/** The owner a wallet session is limited to; undefined for admins (no limit). */
function ownerScope(session: Session): string | undefined {
  return isAdmin(session) ? undefined : session.address;
}

export const deploymentsRouter = router({
  create: operatorProcedure
    .meta(
      rest({
        method: "POST",
        path: "/v1/deployments",
        idempotent: true,
        operationId: "createDeployment",
        summary: "Creates a deployment in init for an owner and a proposal.",
        body: { required: true },
        status: 201,
        answers: { 201: { description: "Created." } },
        refusals: {
          400: problem("Invalid fields or malformed JSON."),
          ...adminErrors,
          409: problem("The request_id exists already."),
          ...jsonBodyErrors,
        },
      }),
    )
    .input(createDeploymentInputSchema)
    .output(deploymentSchema)
    .mutation(({ ctx, input }) => createDeployment(ctx, input)),

  /** Admins see all deployments; a signed-in wallet sees its own. */
  list: walletProcedure
    .meta(
      rest({
        method: "GET",
        path: "/v1/deployments",
        operationId: "listDeployments",
        summary: "Deployments, newest first, filtered by owner, status and proposal.",
        description:
          "Every deployment, for the admin key. (A signed-in wallet sees its own on the dashboard, over /api/trpc with its session; REST takes no session.)",
        security: ADMIN,
        answers: { 200: { description: "One page." } },
        refusals: { 400: problem("Invalid query parameter."), ...adminErrors },
      }),
    )
    .input(listDeploymentsInputSchema)
    .output(listDeploymentsOutputSchema)
    .query(({ ctx, input }) => listDeployments(ctx, input, ownerScope(ctx.session))),

  get: walletProcedure
    .meta(
      rest({
        method: "GET",
        path: "/v1/deployments/{id}",
        operationId: "getDeployment",
        summary: "One deployment with its latest status changes.",
        description: `Any deployment, for the admin key, with its last ${RECORD_HISTORY_LENGTH} changes in \`history\` and the count of all of them in \`history_total\`; GET /v1/deployments/{id}/history pages through the rest. (A signed-in wallet reads its own on the dashboard, over /api/trpc with its session; REST takes no session.)`,
        security: ADMIN,
        answers: { 200: { description: "The deployment." } },
        refusals: {
          400: problem("The id is not a whole number above 0, or has a malformed percent-escape."),
          ...adminErrors,
          404: problem("No such deployment."),
        },
      }),
    )
    .input(deploymentIdInputSchema)
    .output(deploymentWithHistorySchema)
    .query(({ ctx, input }) => getDeployment(ctx, input.id, ownerScope(ctx.session))),

  history: walletProcedure
    .meta(
      rest({
        method: "GET",
        path: "/v1/deployments/{id}/history",
        operationId: "listDeploymentHistory",
        summary: "A deployment's status changes, newest first, a page at a time.",
        description:
          "Every change the deployment has had, each once: follow next_cursor until it is null. For the admin key. (A signed-in wallet reads its own on the dashboard.)",
        security: ADMIN,
        answers: { 200: { description: "One page.", examples: examples.historyPage } },
        refusals: {
          400: problem("A bad id, limit or cursor."),
          ...adminErrors,
          404: problem("No such deployment."),
        },
      }),
    )
    .input(historyPageInputSchema)
    .output(historyPageSchema)
    .query(({ ctx, input }) => listHistory(ctx, input, ownerScope(ctx.session))),

  /** The changes a wallet could sign on a deployment, and whether they need a Privy token. */
  changeOptions: walletProcedure
    .input(changeOptionsInputSchema)
    .output(changeOptionsSchema)
    .query(({ ctx, input }) => changeOptions(ctx, input, ctx.session)),

  /** An admin's change (cancel, fail, move on), recorded in the history as the admin's. */
  changeStatus: operatorProcedure
    .meta(
      rest({
        method: "POST",
        path: "/v1/deployments/{id}/status",
        operationId: "changeDeploymentStatus",
        summary: "The admin changes a deployment's status (cancel it, fail it, move it on).",
        description:
          "By the same status machine as a worker's signed change (init → pick_up → deploying → deployed → generated_proof; any non-final → failed; init/pick_up → cancelled; deployed/generated_proof → pick_up; the same status again updates the details). No signature: the admin key is the authority. Recorded in the history with signer_address `admin` and an empty nonce; no worker is assigned by it.",
        body: { required: true },
        answers: { 200: { description: "The deployment record." } },
        refusals: {
          400: problem(
            "Invalid status or details, details over their bound once merged, malformed JSON, or a bad id.",
            examples.detailsTooLarge,
          ),
          ...adminErrors,
          404: problem("No such deployment."),
          409: problem("The transition is not allowed from the deployment's status."),
          ...jsonBodyErrors,
        },
      }),
    )
    .input(adminStatusChangeInputSchema)
    .output(deploymentSchema)
    .mutation(({ ctx, input }) => changeStatusAsAdmin(ctx, input, ctx.session)),

  /** Public: the signed message is the credential. */
  updateStatus: publicProcedure
    .meta(
      rest({
        method: "POST",
        path: "/v1/deployments/worker/status",
        operationId: "updateDeploymentStatus",
        summary:
          "A worker changes a deployment's status with a signed Sign-In with Ethereum message.",
        description: `siwe_msg is an EIP-4361 message whose statement is a JSON object {request_id, status, deployment_details?, worker_name?, worker_uuid?}, with a nonce from GET /v1/nonce. Statuses: init → pick_up → deploying → deployed → generated_proof; any non-final → failed; init/pick_up → cancelled; deployed/generated_proof → pick_up. deployment_details is merged key by key into the deployment's, which may hold at most ${DETAILS_MAX_BYTES} bytes as JSON: a change that would take them over is refused (400 invalid_statement). The signed message is the credential: no key is needed.`,
        // The signed message is the credential.
        body: { required: true },
        answers: { 200: { description: "The deployment record." } },
        refusals: {
          400: problem(
            "Malformed body, message or statement, or details over their bound once merged.",
          ),
          401: problem("Signature, nonce, domain, URI, chain, time or token check failed."),
          403: problem("The signer may not change this deployment."),
          404: problem("No deployment has that request_id."),
          409: problem("Transition not allowed, or already picked up by another worker."),
          ...jsonBodyErrors,
          503: databaseUnavailable,
        },
      }),
    )
    .input(statusUpdateInputSchema)
    .output(deploymentSchema)
    .mutation(({ ctx, input }) => updateStatus(ctx, input)),
});
