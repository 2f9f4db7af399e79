import { z } from "zod";
import {
  createDocument,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
} from "zod-openapi";
import packageJson from "@/package.json" with { type: "json" };
import { jsonContent, openAiRefusal, problem, refusedBeforeRouting } from "@/server/http";
import type { Operation } from "./operation";

/**
 * The OpenAPI 3.1 document, made from the operation table (operations.ts) by zod-openapi: each
 * operation's path and query parameters or body are its procedure's input fields, its answers
 * its procedure's output, so nothing in the document is typed by hand. A schema with a
 * `.meta({ id })` is a component, referenced wherever it is used. Operations are grouped by
 * their router, which the tags below describe.
 */

/** Each router's tag in the document: its name there, and what its operations are about. */
const TAGS: Record<string, { name: string; description: string }> = {
  agents: { name: "agents", description: "Agents: their configuration, quotas and counters." },
  tools: { name: "tools", description: "The tools an agent's MCP servers offer it." },
  approvals: {
    name: "approvals",
    description: "Tool calls that wait for a person to approve or deny them.",
  },
  runs: { name: "runs", description: "Autonomous runs: the schedule's runs, and a run now." },
  chat: { name: "chat", description: "Chat with an agent." },
  completions: { name: "completions", description: "Agents as OpenAI chat completions." },
  responses: { name: "responses", description: "Agents through OpenAI's Responses API." },
  mcp: { name: "mcp", description: "Agents as MCP servers, for MCP clients and other agents." },
  a2a: { name: "a2a", description: "Agents as A2A 1.0 servers, for other agents." },
  openaiModels: { name: "models", description: "Agents as the models OpenAI clients list." },
  threads: {
    name: "threads",
    description: "Each caller's threads with an agent, and their messages.",
  },
  agentKeys: { name: "agent keys", description: "The keys callers use for one agent." },
  usage: { name: "usage", description: "Messages, runs, tokens and cost over time." },
  requestLog: { name: "request log", description: "One entry per chat, completion or MCP chat." },
  audit: { name: "audit", description: "Who changed what: every admin change, as it was made." },
  prices: { name: "prices", description: "Prices per million tokens, by model." },
  admins: {
    name: "admins",
    description: "The people who administer the service, their roles and their own API keys.",
  },
  nonces: { name: "nonces", description: "Nonces for signed (SIWE) messages." },
  deployments: {
    name: "deployments",
    description: "Worker deployments and their signed status updates.",
  },
  webhooks: {
    name: "webhooks",
    description: "Webhook endpoints, their deliveries, tests and retries.",
  },
  operator: { name: "operator", description: "Health, probes, metrics and this document." },
  signIn: {
    name: "sign-in",
    description:
      "Dashboard sign-in with an OpenID provider (SSO): paths for browsers, not API clients.",
  },
};

const tagName = (router: string) => TAGS[router]?.name ?? router;

const securitySchemes = {
  adminKey: {
    type: "http",
    scheme: "bearer",
    description:
      "The ADMIN_API_KEY (the bootstrap owner), or a person's own admin key (`admk_<id>_<secret>`, made by POST /admins/{id}/keys), which acts with its role. REST takes keys only: the dashboard's session cookie is refused here, wallets included.",
  },
  metricsToken: {
    type: "http",
    scheme: "bearer",
    description: "METRICS_TOKEN, a scraper's token for GET /metrics only.",
  },
  agentKey: {
    type: "http",
    scheme: "bearer",
    description:
      "A key of the agent (`ak_<id>_<secret>`, made by POST /agents/{aid}/keys). Needed when the agent's chat_access is `key`; without one, a caller is known by its client address.",
  },
} as const;

function create(publicUrl: string, operations: readonly Operation[]): oas31.OpenAPIObject {
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Agent Service",
      version: packageJson.version,
      description:
        "Hosts AI agents with per-agent quotas. Errors are RFC 9457 problem details (application/problem+json). A method a path does not take is answered 405 with Allow.",
      // package.json's UNLICENSED is npm's word for "no licence is granted", not an SPDX
      // identifier: SPDX names a licence of one's own LicenseRef-…, and REUSE's for
      // proprietary work is LicenseRef-Proprietary.
      license: { name: packageJson.license, identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: publicUrl }],
    components: { securitySchemes },
    tags: tagsOf(operations),
    paths: pathsOf(operations),
  });
}

/** The tags in the order their operations come, each with its description. */
function tagsOf(operations: readonly Operation[]): oas31.TagObject[] {
  const routers = [...new Set(operations.filter((o) => !o.hidden).map((o) => o.tag))];
  return routers.map((router) => ({
    name: tagName(router),
    ...(TAGS[router] ? { description: TAGS[router].description } : {}),
  }));
}

function pathsOf(operations: readonly Operation[]): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const operation of operations) {
    if (operation.hidden) continue;
    paths[operation.path] = {
      ...paths[operation.path],
      [operation.method.toLowerCase()]: operationOf(operation),
    };
  }
  return paths;
}

function operationOf(operation: Operation): ZodOpenApiOperationObject {
  const input = operation.procedure?.input ?? operation.bareQuery;
  const mask = Object.fromEntries(operation.pathParams.map((name) => [name, true as const]));
  // The path's fields are always given, whatever defaults the procedure has.
  // The mask names fields of the input (the path's parameters are its fields, routeFor checks);
  // zod's own mask type cannot see it through the general ZodObject.
  const path =
    input && operation.pathParams.length > 0 ? input.pick(mask as never).required() : undefined;
  // Without path parameters the input is the query or body whole (it need not be an object
  // schema: POST /agents's input reads `id` as an alias of `aid`).
  const rest = input && operation.pathParams.length > 0 ? input.omit(mask as never) : input;
  const hasRest = rest !== undefined && (!("shape" in rest) || Object.keys(rest.shape).length > 0);
  const responses: Record<string, ZodOpenApiResponsesObject[keyof ZodOpenApiResponsesObject]> = {};
  for (const [status, answer] of Object.entries(operation.answers)) {
    const schema = answer.schema ?? operation.procedure?.output;
    responses[status] = {
      description: answer.description,
      ...(answer.headers ? { headers: answer.headers } : {}),
      ...(answer.empty
        ? {}
        : {
            content: {
              ...(schema ? jsonContent(schema as z.ZodType, answer.examples) : {}),
              ...answer.content,
            },
          }),
    };
  }
  Object.assign(responses, operation.refusals, refusedBeforeRouting);
  if (operation.idempotent) addRefusals(responses, idempotencyRefusals(operation));
  return {
    operationId: operation.operationId,
    tags: [tagName(operation.tag)],
    summary: operation.summary,
    ...(operation.description || operation.role
      ? {
          description: [operation.description, roleSentence(operation.role)]
            .filter(Boolean)
            .join("\n\n"),
        }
      : {}),
    ...(operation.role ? { "x-role": operation.role } : {}),
    security: operation.security,
    ...(path || (hasRest && !operation.body) || operation.idempotent
      ? {
          requestParams: {
            ...(path ? { path } : {}),
            ...(hasRest && !operation.body ? { query: rest } : {}),
            ...(operation.idempotent ? { header: idempotencyHeader } : {}),
          },
        }
      : {}),
    ...(operation.body && rest
      ? {
          requestBody: {
            required: operation.body.required,
            content: jsonContent(rest, operation.body.examples),
          },
        }
      : {}),
    responses: responses as ZodOpenApiResponsesObject,
  };
}

/** What the document says of an operation's role, beside the machine-readable `x-role`. */
function roleSentence(role: Operation["role"]): string | undefined {
  if (!role) return undefined;
  return role === "viewer"
    ? "Role: viewer (every admin)."
    : `Role: ${role}${role === "operator" ? " or owner" : ""}; a lower role is refused with 403.`;
}

const idempotencyHeader = z.object({
  "Idempotency-Key": z.string().min(1).max(255).optional().meta({
    description:
      "A key of the client's choosing (a UUID), 1 to 255 visible ASCII characters, bare or as a quoted string. A retry with the same key and request within 24 hours replays the first successful answer, marked `Idempotent-Replayed: true`, without doing the work again; an answer that was not a success keeps nothing, so a retry does the work.",
  }),
});

function idempotencyRefusals(operation: Operation): ZodOpenApiResponsesObject {
  const shape = operation.errors === "openai" ? openAiRefusal : problem;
  return {
    "409": shape(
      "idempotency_key_in_use: a request with the same Idempotency-Key is still being answered; Retry-After says when to retry.",
    ),
    "422": shape(
      "idempotency_key_reused: the Idempotency-Key was sent with another request (operation or body) in the last 24 hours.",
    ),
  };
}

/** Adds refusals, a status the operation already gives described as either. */
function addRefusals(responses: Record<string, unknown>, added: ZodOpenApiResponsesObject): void {
  for (const [status, refusal] of Object.entries(added)) {
    const given = responses[status] as { description: string } | undefined;
    const ours = refusal as { description: string };
    responses[status] = given
      ? { ...given, description: `${given.description} Or ${ours.description}` }
      : ours;
  }
}

let built: { publicUrl: string; document: oas31.OpenAPIObject } | undefined;

/** The document for this service's public URL, made once: GET /openapi.json is public. */
export function buildOpenApiDocument(
  publicUrl: string,
  operations: readonly Operation[],
): oas31.OpenAPIObject {
  if (built?.publicUrl !== publicUrl)
    built = { publicUrl, document: create(publicUrl, operations) };
  return built.document;
}
