import type { z } from "zod";
import {
  createDocument,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
} from "zod-openapi";
import packageJson from "@/package.json" with { type: "json" };
import { jsonContent, refusedBeforeRouting } from "./documented";
import type { Endpoint } from "./endpoint";

/**
 * The OpenAPI 3.1 document, made from the operation table by zod-openapi: parameters, bodies and
 * answers are the procedures' own schemas, so nothing in it is typed by hand.
 */

const securitySchemes = {
  adminKey: {
    type: "http",
    scheme: "bearer",
    description:
      "The ADMIN_API_KEY. REST takes this key only: the dashboard's session cookie is refused here, wallets included.",
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

function create(publicUrl: string, endpoints: readonly Endpoint[]): oas31.OpenAPIObject {
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
    paths: pathsOf(endpoints),
  });
}

function pathsOf(endpoints: readonly Endpoint[]): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const endpoint of endpoints) {
    paths[endpoint.path] = {
      ...paths[endpoint.path],
      [endpoint.method.toLowerCase()]: operationOf(endpoint),
    };
  }
  return paths;
}

function operationOf(endpoint: Endpoint): ZodOpenApiOperationObject {
  const input = endpoint.procedure?.input;
  const mask = Object.fromEntries(endpoint.pathParams.map((name) => [name, true as const]));
  // The path's fields are always given, whatever defaults the procedure has.
  // The mask names fields of the input (the path's parameters are its fields, routeFor checks);
  // zod's own mask type cannot see it through the general ZodObject.
  const path =
    input && endpoint.pathParams.length > 0 ? input.pick(mask as never).required() : undefined;
  // Without path parameters the input is the query or body whole (it need not be an object
  // schema: POST /agents's input reads `id` as an alias of `aid`).
  const rest = input && endpoint.pathParams.length > 0 ? input.omit(mask as never) : input;
  const hasRest = rest !== undefined && (!("shape" in rest) || Object.keys(rest.shape).length > 0);
  const responses: Record<string, ZodOpenApiResponsesObject[keyof ZodOpenApiResponsesObject]> = {};
  for (const [status, answer] of Object.entries(endpoint.answers)) {
    const schema = answer.schema ?? endpoint.procedure?.output;
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
  Object.assign(responses, endpoint.refusals, refusedBeforeRouting);
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    ...(endpoint.description ? { description: endpoint.description } : {}),
    security: endpoint.security,
    ...(path || (hasRest && !endpoint.body)
      ? {
          requestParams: {
            ...(path ? { path } : {}),
            ...(hasRest && !endpoint.body ? { query: rest } : {}),
          },
        }
      : {}),
    ...(endpoint.body && rest
      ? {
          requestBody: {
            required: endpoint.body.required,
            content: jsonContent(rest, endpoint.body.examples),
          },
        }
      : {}),
    responses: responses as ZodOpenApiResponsesObject,
  };
}

let built: { publicUrl: string; document: oas31.OpenAPIObject } | undefined;

/** The document for this service's public URL, made once: GET /openapi.json is public. */
export function buildOpenApiDocument(
  publicUrl: string,
  endpoints: readonly Endpoint[],
): oas31.OpenAPIObject {
  if (built?.publicUrl !== publicUrl) built = { publicUrl, document: create(publicUrl, endpoints) };
  return built.document;
}
