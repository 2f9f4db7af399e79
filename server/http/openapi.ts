import { z } from "zod";
import packageJson from "@/package.json" with { type: "json" };
import {
  agentInputSchema,
  agentSchema,
  listAgentsInputSchema,
  listAgentsOutputSchema,
} from "@/server/agents/schema";
import { chatInputSchema, chatReplySchema } from "@/server/chat/schema";
import {
  createDeploymentInputSchema,
  deploymentSchema,
  deploymentWithHistorySchema,
  listDeploymentsInputSchema,
  listDeploymentsOutputSchema,
  nonceOutputSchema,
  statusUpdateInputSchema,
} from "@/server/deployments/schema";
import { healthSchema } from "@/server/health/health";
import { MAX_BODY_BYTES } from "@/server/http/rest";
import { listRunsInputSchema, listRunsOutputSchema } from "@/server/scheduler/schema";

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas the procedures validate with.
 * OpenAPI 3.1 schemas are JSON Schema 2020-12, which zod emits natively; the only rewrite is
 * moving named schemas from each schema's `$defs` into `components.schemas`.
 */

type JsonSchema = Record<string, unknown>;

const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.int(),
    detail: z.string().meta({ description: "A sentence for people." }),
    code: z.string().meta({ description: "A stable machine-readable code, e.g. agent_not_found." }),
    errors: z
      .array(z.object({ field: z.string(), detail: z.string() }))
      .optional()
      .meta({ description: "One entry per invalid field." }),
    retry_after_s: z.int().optional(),
  })
  .meta({ id: "Problem", description: "RFC 9457 problem details." });

function collectSchema(
  schema: z.ZodType,
  io: "input" | "output",
  components: Record<string, JsonSchema>,
) {
  const generated = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" });
  const text = JSON.stringify(generated).replaceAll('"#/$defs/', '"#/components/schemas/');
  const {
    $schema: _,
    $defs,
    ...rest
  } = JSON.parse(text) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  Object.assign(components, $defs);
  return rest;
}

const problemResponse = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
});

export function buildOpenApiDocument(publicUrl: string) {
  const components: Record<string, JsonSchema> = {};
  const jsonBody = (schema: z.ZodType, io: "input" | "output") => ({
    "application/json": { schema: collectSchema(schema, io, components) },
  });
  components.Problem = collectSchema(problemSchema, "output", components);

  /** The input schema's properties, for query and path parameters. */
  const inputProperties = (schema: z.ZodType) =>
    (collectSchema(schema, "input", components) as { properties: Record<string, JsonSchema> })
      .properties;
  const listQuery = inputProperties(listAgentsInputSchema);
  const adminErrors = { "401": problemResponse("Missing or wrong admin API key.") };
  const runsQuery = inputProperties(listRunsInputSchema);
  const deploymentsQuery = inputProperties(listDeploymentsInputSchema);
  const queryParameters = (properties: Record<string, JsonSchema>) =>
    Object.entries(properties).map(([name, schema]) => ({
      name,
      in: "query",
      required: false,
      schema,
    }));
  const chatQuery = inputProperties(chatInputSchema);

  return {
    openapi: "3.1.0",
    info: {
      title: "Agent Service",
      version: packageJson.version,
      description:
        "Hosts AI agents with per-agent quotas. Errors are RFC 9457 problem details (application/problem+json).",
    },
    servers: [{ url: publicUrl }],
    components: {
      schemas: components,
      securitySchemes: {
        adminKey: { type: "http", scheme: "bearer", description: "The ADMIN_API_KEY." },
      },
    },
    paths: {
      "/health": {
        get: {
          operationId: "getHealth",
          summary: "Service health, with a real database check bounded to 1 s.",
          responses: {
            "200": { description: "Healthy.", content: jsonBody(healthSchema, "output") },
            "503": {
              description: "Unhealthy: the failing part is named.",
              content: jsonBody(healthSchema, "output"),
            },
          },
        },
      },
      "/{aid}/chat": {
        get: {
          operationId: "chat",
          summary: "Ask an agent; its reply as text, JSON or server-sent events (by Accept).",
          description:
            "The message quota is reserved before the model is called and given back when the reply is not delivered. With Accept: text/event-stream the events are `start` {aid, chat_id}, `delta` {text} (repeated), then `done` (the JSON reply) or `error` (a problem).",
          parameters: [
            { name: "aid", in: "path", required: true, schema: chatQuery.aid },
            { name: "q", in: "query", required: true, schema: chatQuery.q },
            { name: "chat_id", in: "query", required: false, schema: chatQuery.chat_id },
          ],
          responses: {
            "200": {
              description: "The reply.",
              content: {
                "text/plain": { schema: { type: "string" } },
                ...jsonBody(chatReplySchema, "output"),
                "text/event-stream": { schema: { type: "string" } },
              },
            },
            "400": problemResponse("Missing or invalid q or chat_id."),
            "404": problemResponse("Unknown agent."),
            "429": problemResponse(
              "Message quota exceeded; Retry-After says when it frees (none for a total).",
            ),
            "502": problemResponse("The model provider failed."),
            "503": problemResponse(
              "Every model slot of this server is busy, or the database is unreachable.",
            ),
            "504": problemResponse("The model provider did not answer in time."),
          },
        },
      },
      "/agents/{aid}/runs": {
        get: {
          operationId: "listRuns",
          summary:
            "An agent's autonomous runs, newest first: due time, start, end, outcome, reply or error.",
          security: [{ adminKey: [] }],
          parameters: [
            { name: "aid", in: "path", required: true, schema: runsQuery.aid },
            { name: "limit", in: "query", required: false, schema: runsQuery.limit },
            { name: "cursor", in: "query", required: false, schema: runsQuery.cursor },
          ],
          responses: {
            "200": {
              description: "One page of runs.",
              content: jsonBody(listRunsOutputSchema, "output"),
            },
            "400": problemResponse("Invalid query parameter."),
            ...adminErrors,
            "404": problemResponse("Unknown agent."),
          },
        },
      },
      "/v1/nonce": {
        get: {
          operationId: "getNonce",
          summary:
            "A single-use nonce for a Sign-In with Ethereum message; it expires after 10 minutes.",
          parameters: [
            {
              name: "user_address",
              in: "query",
              required: true,
              schema: { type: "string", pattern: "^0x[0-9a-fA-F]{40}$" },
            },
          ],
          responses: {
            "200": { description: "The nonce.", content: jsonBody(nonceOutputSchema, "output") },
            "400": problemResponse("Missing or invalid address."),
          },
        },
      },
      "/v1/deployments": {
        get: {
          operationId: "listDeployments",
          summary: "Deployments, newest first, filtered by owner, status and proposal.",
          security: [{ adminKey: [] }],
          parameters: queryParameters(deploymentsQuery),
          responses: {
            "200": {
              description: "One page.",
              content: jsonBody(listDeploymentsOutputSchema, "output"),
            },
            "400": problemResponse("Invalid query parameter."),
            ...adminErrors,
          },
        },
        post: {
          operationId: "createDeployment",
          summary: "Creates a deployment in init for an owner and a proposal.",
          security: [{ adminKey: [] }],
          requestBody: { required: true, content: jsonBody(createDeploymentInputSchema, "input") },
          responses: {
            "201": { description: "Created.", content: jsonBody(deploymentSchema, "output") },
            "400": problemResponse("Invalid fields or malformed JSON."),
            ...adminErrors,
            "409": problemResponse("The request_id exists already."),
          },
        },
      },
      "/v1/deployments/{id}": {
        get: {
          operationId: "getDeployment",
          summary: "One deployment with its status history.",
          security: [{ adminKey: [] }],
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } },
          ],
          responses: {
            "200": {
              description: "The deployment.",
              content: jsonBody(deploymentWithHistorySchema, "output"),
            },
            ...adminErrors,
            "404": problemResponse("No such deployment."),
          },
        },
      },
      "/v1/deployments/worker/status": {
        post: {
          operationId: "updateDeploymentStatus",
          summary:
            "A worker changes a deployment's status with a signed Sign-In with Ethereum message.",
          description:
            "siwe_msg is an EIP-4361 message whose statement is a JSON object {request_id, status, deployment_details?, worker_name?, worker_uuid?}, with a nonce from GET /v1/nonce. Statuses: init → pick_up → deploying → deployed → generated_proof; any non-final → failed; init/pick_up → cancelled; deployed/generated_proof → pick_up.",
          requestBody: { required: true, content: jsonBody(statusUpdateInputSchema, "input") },
          responses: {
            "200": {
              description: "The deployment record.",
              content: jsonBody(deploymentSchema, "output"),
            },
            "400": problemResponse("Malformed body, message or statement."),
            "401": problemResponse(
              "Signature, nonce, domain, URI, chain, time or token check failed.",
            ),
            "403": problemResponse("The signer may not change this deployment."),
            "404": problemResponse("No deployment has that request_id."),
            "409": problemResponse(
              "Transition not allowed, or already picked up by another worker.",
            ),
          },
        },
      },
      "/agents": {
        get: {
          operationId: "listAgents",
          summary: "List agents with their quotas (keyset pagination, search by aid or name).",
          security: [{ adminKey: [] }],
          parameters: queryParameters(listQuery),
          responses: {
            "200": {
              description: "One page of agents.",
              content: jsonBody(listAgentsOutputSchema, "output"),
            },
            "400": problemResponse("Invalid query parameter."),
            ...adminErrors,
          },
        },
        post: {
          operationId: "upsertAgent",
          summary: "Create an agent, or update the fields given (omitted fields keep their value).",
          security: [{ adminKey: [] }],
          requestBody: { required: true, content: jsonBody(agentInputSchema, "input") },
          responses: {
            "200": { description: "Updated.", content: jsonBody(agentSchema, "output") },
            "201": { description: "Created.", content: jsonBody(agentSchema, "output") },
            "400": problemResponse("Invalid agent ID format, invalid fields, or malformed JSON."),
            ...adminErrors,
            "413": problemResponse(`Body larger than ${MAX_BODY_BYTES / 1024} KiB.`),
            "415": problemResponse("Body is not JSON."),
            "500": problemResponse("Database failure; nothing was written."),
          },
        },
      },
    },
  };
}
