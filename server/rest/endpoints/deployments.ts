import {
  ADMIN,
  adminErrors,
  databaseUnavailable,
  jsonBodyErrors,
  PUBLIC,
  problem,
} from "../documented";
import { endpoint } from "../endpoint";

export const deploymentEndpoints = [
  endpoint({
    method: "GET",
    path: "/v1/deployments",
    procedure: (p) => p.deployments.list,
    operationId: "listDeployments",
    summary: "Deployments, newest first, filtered by owner, status and proposal.",
    description:
      "Every deployment, for the admin key. (A signed-in wallet sees its own on the dashboard, over /api/trpc with its session; REST takes no session.)",
    security: ADMIN,
    answers: { 200: { description: "One page." } },
    refusals: { 400: problem("Invalid query parameter."), ...adminErrors },
  }),
  endpoint({
    method: "POST",
    path: "/v1/deployments",
    procedure: (p) => p.deployments.create,
    operationId: "createDeployment",
    summary: "Creates a deployment in init for an owner and a proposal.",
    security: ADMIN,
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
  endpoint({
    method: "GET",
    path: "/v1/deployments/{id}",
    procedure: (p) => p.deployments.get,
    operationId: "getDeployment",
    summary: "One deployment with its status history.",
    description:
      "Any deployment, for the admin key. (A signed-in wallet reads its own on the dashboard, over /api/trpc with its session; REST takes no session.)",
    security: ADMIN,
    answers: { 200: { description: "The deployment." } },
    refusals: {
      400: problem("The id is not a whole number above 0, or has a malformed percent-escape."),
      ...adminErrors,
      404: problem("No such deployment."),
    },
  }),
  endpoint({
    method: "POST",
    path: "/v1/deployments/{id}/status",
    procedure: (p) => p.deployments.changeStatus,
    operationId: "changeDeploymentStatus",
    summary: "The admin changes a deployment's status (cancel it, fail it, move it on).",
    description:
      "By the same status machine as a worker's signed change (init → pick_up → deploying → deployed → generated_proof; any non-final → failed; init/pick_up → cancelled; deployed/generated_proof → pick_up; the same status again updates the details). No signature: the admin key is the authority. Recorded in the history with signer_address `admin` and an empty nonce; no worker is assigned by it.",
    security: ADMIN,
    body: { required: true },
    answers: { 200: { description: "The deployment record." } },
    refusals: {
      400: problem("Invalid status or details, malformed JSON, or a bad id."),
      ...adminErrors,
      404: problem("No such deployment."),
      409: problem("The transition is not allowed from the deployment's status."),
      ...jsonBodyErrors,
    },
  }),
  endpoint({
    method: "POST",
    path: "/v1/deployments/worker/status",
    procedure: (p) => p.deployments.updateStatus,
    operationId: "updateDeploymentStatus",
    summary: "A worker changes a deployment's status with a signed Sign-In with Ethereum message.",
    description:
      "siwe_msg is an EIP-4361 message whose statement is a JSON object {request_id, status, deployment_details?, worker_name?, worker_uuid?}, with a nonce from GET /v1/nonce. Statuses: init → pick_up → deploying → deployed → generated_proof; any non-final → failed; init/pick_up → cancelled; deployed/generated_proof → pick_up. The signed message is the credential: no key is needed.",
    // The signed message is the credential.
    security: PUBLIC,
    body: { required: true },
    answers: { 200: { description: "The deployment record." } },
    refusals: {
      400: problem("Malformed body, message or statement."),
      401: problem("Signature, nonce, domain, URI, chain, time or token check failed."),
      403: problem("The signer may not change this deployment."),
      404: problem("No deployment has that request_id."),
      409: problem("Transition not allowed, or already picked up by another worker."),
      ...jsonBodyErrors,
      503: databaseUnavailable,
    },
  }),
];
