import { createDocument, type oas31 } from "zod-openapi";
import packageJson from "@/package.json" with { type: "json" };
import { agentPaths } from "./agents";
import { chatPaths } from "./chat";
import { deploymentPaths } from "./deployments";
import { keyPaths } from "./keys";
import { operationsPaths } from "./operations";
import { withRefusalsBeforeRouting } from "./parts";
import { usagePaths } from "./usage";

/**
 * The OpenAPI 3.1 document, made by zod-openapi from the same zod schemas the procedures
 * validate with: bodies, answers and path and query parameters alike. A schema with a
 * `.meta({ id })` is a component, referenced wherever it is used.
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

function create(publicUrl: string): oas31.OpenAPIObject {
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
    paths: withRefusalsBeforeRouting({
      ...agentPaths,
      ...chatPaths,
      ...keyPaths,
      ...usagePaths,
      ...deploymentPaths,
      ...operationsPaths,
    }),
  });
}

let built: { publicUrl: string; document: oas31.OpenAPIObject } | undefined;

/** The document for this service's public URL, made once: GET /openapi.json is public. */
export function buildOpenApiDocument(publicUrl: string): oas31.OpenAPIObject {
  if (built?.publicUrl !== publicUrl) built = { publicUrl, document: create(publicUrl) };
  return built.document;
}
