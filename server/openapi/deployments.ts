import type { ZodOpenApiPathsObject } from "zod-openapi";
import {
  createDeploymentInputSchema,
  deploymentIdInputSchema,
  deploymentSchema,
  deploymentWithHistorySchema,
  listDeploymentsInputSchema,
  listDeploymentsOutputSchema,
  statusUpdateInputSchema,
} from "@/server/deployments";
import { nonceInputSchema, nonceOutputSchema } from "@/server/nonces";
import {
  ADMIN,
  adminErrors,
  databaseUnavailable,
  json,
  jsonBodyErrors,
  PUBLIC,
  problem,
} from "./parts";

/** Worker deployments: the admin's, and the workers' signed status changes. */

export const deploymentPaths: ZodOpenApiPathsObject = {
  "/v1/nonce": {
    get: {
      operationId: "getNonce",
      summary:
        "A single-use nonce for a Sign-In with Ethereum message; it expires after 10 minutes.",
      security: PUBLIC,
      requestParams: { query: nonceInputSchema },
      responses: {
        "200": { description: "The nonce.", content: json(nonceOutputSchema) },
        "400": problem("Missing or invalid address."),
        "429": problem("rate_limited: this client address asked for too many nonces a minute."),
        "503": databaseUnavailable,
      },
    },
  },
  "/v1/deployments": {
    get: {
      operationId: "listDeployments",
      summary: "Deployments, newest first, filtered by owner, status and proposal.",
      description:
        "Every deployment, for the admin key. (A signed-in wallet sees its own on the dashboard, over /api/trpc with its session; REST takes no session.)",
      security: ADMIN,
      requestParams: { query: listDeploymentsInputSchema },
      responses: {
        "200": { description: "One page.", content: json(listDeploymentsOutputSchema) },
        "400": problem("Invalid query parameter."),
        ...adminErrors,
      },
    },
    post: {
      operationId: "createDeployment",
      summary: "Creates a deployment in init for an owner and a proposal.",
      security: ADMIN,
      requestBody: { required: true, content: json(createDeploymentInputSchema) },
      responses: {
        "201": { description: "Created.", content: json(deploymentSchema) },
        "400": problem("Invalid fields or malformed JSON."),
        ...adminErrors,
        "409": problem("The request_id exists already."),
        ...jsonBodyErrors,
      },
    },
  },
  "/v1/deployments/{id}": {
    get: {
      operationId: "getDeployment",
      summary: "One deployment with its status history.",
      description:
        "Any deployment, for the admin key. (A signed-in wallet reads its own on the dashboard, over /api/trpc with its session; REST takes no session.)",
      security: ADMIN,
      requestParams: { path: deploymentIdInputSchema },
      responses: {
        "200": { description: "The deployment.", content: json(deploymentWithHistorySchema) },
        "400": problem("The id is not a whole number above 0, or has a malformed percent-escape."),
        ...adminErrors,
        "404": problem("No such deployment."),
      },
    },
  },
  "/v1/deployments/worker/status": {
    post: {
      operationId: "updateDeploymentStatus",
      summary:
        "A worker changes a deployment's status with a signed Sign-In with Ethereum message.",
      description:
        "siwe_msg is an EIP-4361 message whose statement is a JSON object {request_id, status, deployment_details?, worker_name?, worker_uuid?}, with a nonce from GET /v1/nonce. Statuses: init → pick_up → deploying → deployed → generated_proof; any non-final → failed; init/pick_up → cancelled; deployed/generated_proof → pick_up. The signed message is the credential: no key is needed.",
      // The signed message is the credential.
      security: PUBLIC,
      requestBody: { required: true, content: json(statusUpdateInputSchema) },
      responses: {
        "200": { description: "The deployment record.", content: json(deploymentSchema) },
        "400": problem("Malformed body, message or statement."),
        "401": problem("Signature, nonce, domain, URI, chain, time or token check failed."),
        "403": problem("The signer may not change this deployment."),
        "404": problem("No deployment has that request_id."),
        "409": problem("Transition not allowed, or already picked up by another worker."),
        ...jsonBodyErrors,
        "503": databaseUnavailable,
      },
    },
  },
};
