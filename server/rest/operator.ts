import { timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { embeddedDatabaseFailure, isDatabaseUnavailable } from "@/db/failures";
import { bearerToken, isAdmin } from "@/server/auth";
import { createContext, startedAt } from "@/server/frame/context";
import { AppError, databaseUnavailable as unavailable } from "@/server/frame/errors";
import { getConfig, getServices } from "@/server/frame/services";
import { healthReport, healthSchema, probeSchema, readiness } from "@/server/health";
import { type Documentation, json, type Method, PUBLIC, problem } from "@/server/http";
import { textResponse } from "@/server/instance";
import { MetricsUnavailableError, metricsText } from "@/server/observability";
import { providerName } from "@/server/providers";
import { createProcedureCaller } from "@/server/routers";
import { buildOpenApiDocument } from "./openapi";
import { type BareArgs, type Operation, pathParams } from "./operation";

// The operator's paths take no request context (no credentials are read but metrics' own), so
// that they answer while the database cannot be reached.

export function bareOperation(
  declared: Documentation & {
    method: Method;
    path: string;
    security: NonNullable<Documentation["security"]>;
    role?: Operation["role"];
    answer: (args: BareArgs) => Promise<Response>;
    /** Its group in the document: the operator's unless said. */
    tag?: string;
    bareQuery?: Operation["bareQuery"];
  },
): Operation {
  return {
    ...declared,
    pathParams: pathParams(declared.path),
    tag: declared.tag ?? "operator",
    bare: true,
    handle: () => Promise.reject(new Error("a bare operation answers from the request alone")),
  };
}

export const operatorOperations: Operation[] = [
  bareOperation({
    method: "GET",
    path: "/health",
    operationId: "getHealth",
    security: PUBLIC,
    summary: "Service health, with a real database check bounded to 1 s.",
    answer: async ({ request }) => {
      try {
        await getServices();
      } catch (error) {
        // The database never opened (unreachable, or the embedded one locked by another process
        // or failing to open): still answer in the health format, so monitors can read it.
        if (!isDatabaseUnavailable(error)) throw error;
        const config = getConfig();
        return json(
          healthReport(
            embeddedDatabaseFailure(error) === "locked" ? "locked" : "unreachable",
            {
              startedAt,
              now: new Date(),
              provider: providerName(config.llm),
              databaseKind: config.databaseUrl ? "postgres" : "pglite",
            },
            unavailable(error).detail,
          ),
          503,
        );
      }
      const context = await createContext({ headers: request.headers, cookies: false });
      const health = await createProcedureCaller(context).health.check();
      return json(health, health.status === "healthy" ? 200 : 503);
    },
    answers: {
      200: { description: "Healthy.", schema: healthSchema },
      503: { description: "Unhealthy: the failing part is named.", schema: healthSchema },
    },
    refusals: {},
  }),
  bareOperation({
    method: "GET",
    path: "/health/live",
    operationId: "live",
    security: PUBLIC,
    summary: "Liveness: 200 while the process runs, whatever the database does.",
    answer: async () => json({ status: "live" }),
    answers: { 200: { description: "Live.", schema: probeSchema } },
    refusals: {},
  }),
  bareOperation({
    method: "GET",
    path: "/health/ready",
    operationId: "ready",
    security: PUBLIC,
    summary:
      "Readiness: 200 when the database answers within 1 s and this instance is not draining; 503 during a SIGTERM drain or while the database is down.",
    answer: async () => {
      const services = await getServices().catch(() => undefined);
      const probe = await readiness(services?.database.db);
      const ready = probe.status === "ready";
      return json(probe, ready ? 200 : 503, ready ? {} : { "retry-after": "5" });
    },
    answers: {
      200: { description: "Ready.", schema: probeSchema },
      503: { description: "Not ready, and why.", schema: probeSchema },
    },
    refusals: {},
  }),
  bareOperation({
    method: "GET",
    path: "/metrics",
    operationId: "metrics",
    summary: "Prometheus metrics (text exposition format), for the admin key or METRICS_TOKEN.",
    security: [{ adminKey: [] }, { metricsToken: [] }],
    role: "viewer",
    answer: async ({ request }) => {
      // A scraper's own token is checked first, so a scraper never counts as a wrong admin key.
      if (!metricsTokenMatches(bearerToken(request.headers))) {
        const context = await createContext({ headers: request.headers, cookies: false });
        if (context.credentials === "throttled")
          throw new AppError("too_many_attempts", "Too many wrong keys from your address.", {
            retryAfterS: context.throttledForS ?? 1,
          });
        if (!isAdmin(context.session))
          throw new AppError(
            "unauthorized",
            "Metrics need the admin key or METRICS_TOKEN: send 'Authorization: Bearer <token>'.",
          );
      }
      const { contentType, body } = await metricsText().catch((error: unknown) => {
        if (!(error instanceof MetricsUnavailableError)) throw error;
        throw new AppError("service_unavailable", error.message, { retryAfterS: 1 });
      });
      return textResponse(body, {
        headers: { "content-type": contentType, "cache-control": "no-store" },
      });
    },
    answers: {
      200: {
        description: "The metrics.",
        content: { "text/plain": { schema: { type: "string" } } },
      },
    },
    refusals: {
      401: problem("Missing or wrong key or token."),
      429: problem("too_many_attempts: this client address sent too many wrong keys."),
      503: problem(
        "service_unavailable: the web workers' metrics could not be gathered in time; database_unavailable: the database, which checks the admin key, cannot be used.",
      ),
    },
  }),
  bareOperation({
    method: "GET",
    path: "/openapi.json",
    operationId: "openApi",
    security: PUBLIC,
    summary: "This document.",
    answer: async ({ operations }) => json(buildOpenApiDocument(getConfig().publicUrl, operations)),
    answers: {
      200: {
        description: "The OpenAPI 3.1 document.",
        content: { "application/json": { schema: { type: "object" } } },
      },
    },
    refusals: {},
  }),
  bareOperation({
    method: "GET",
    path: "/docs",
    operationId: "docs",
    security: PUBLIC,
    summary: "Interactive documentation of this document (Swagger UI, served from the service).",
    answer: async () =>
      textResponse(DOCS_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
    answers: {
      200: { description: "The page.", content: { "text/html": { schema: { type: "string" } } } },
    },
    refusals: {},
  }),
];

/** Swagger UI's two files, from the installed swagger-ui-dist package (never a CDN). */
const DOCS_ASSETS: Record<string, string> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
};

operatorOperations.push({
  ...bareOperation({
    method: "GET",
    path: "/docs/{asset}",
    operationId: "docsAsset",
    security: PUBLIC,
    summary: "A file of the documentation page.",
    answer: async ({ request }) => {
      const asset = new URL(request.url).pathname.slice("/docs/".length);
      const type = DOCS_ASSETS[asset];
      if (!type) throw new AppError("not_found", `There is no GET /docs/${asset}.`);
      const file = path.join(process.cwd(), "node_modules", "swagger-ui-dist", asset);
      return new Response(await readFile(file), {
        headers: { "content-type": type, "cache-control": "public, max-age=3600" },
      });
    },
    answers: {},
    refusals: {},
  }),
  hidden: true,
});

function metricsTokenMatches(presented: string | undefined): boolean {
  const token = getConfig().metricsToken;
  if (!token || presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Swagger UI served from this service (app/docs/[asset], no CDN) over /openapi.json. */
const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Agent Service API</title>
<meta name="color-scheme" content="light dark">
<link rel="stylesheet" href="/docs/swagger-ui.css">
<style>
/* Swagger UI has no dark theme: in dark mode the page is inverted, its pictures back again. */
@media (prefers-color-scheme: dark) {
  html { background: #111; }
  body { filter: invert(0.9) hue-rotate(180deg); background: #fff; }
  body img, body svg, body .microlight { filter: invert(1) hue-rotate(180deg); }
}
</style>
</head>
<body>
<div id="docs"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#docs", deepLinking: true, tryItOutEnabled: true });
</script>
</body>
</html>`;
