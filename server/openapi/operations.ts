import type { ZodOpenApiPathsObject } from "zod-openapi";
import { healthSchema, probeSchema } from "@/server/health";
import { json, PUBLIC, problem } from "./parts";

/** The operator's paths: health, probes, metrics, and the documentation itself. */

export const operationsPaths: ZodOpenApiPathsObject = {
  "/health": {
    get: {
      operationId: "getHealth",
      security: PUBLIC,
      summary: "Service health, with a real database check bounded to 1 s.",
      responses: {
        "200": { description: "Healthy.", content: json(healthSchema) },
        "503": {
          description: "Unhealthy: the failing part is named.",
          content: json(healthSchema),
        },
      },
    },
  },
  "/health/live": {
    get: {
      operationId: "live",
      security: PUBLIC,
      summary: "Liveness: 200 while the process runs, whatever the database does.",
      responses: { "200": { description: "Live.", content: json(probeSchema) } },
    },
  },
  "/health/ready": {
    get: {
      operationId: "ready",
      security: PUBLIC,
      summary:
        "Readiness: 200 when the database answers within 1 s and this instance is not draining; 503 during a SIGTERM drain or while the database is down.",
      responses: {
        "200": { description: "Ready.", content: json(probeSchema) },
        "503": { description: "Not ready, and why.", content: json(probeSchema) },
      },
    },
  },
  "/metrics": {
    get: {
      operationId: "metrics",
      summary: "Prometheus metrics (text exposition format), for the admin key or METRICS_TOKEN.",
      security: [{ adminKey: [] }, { metricsToken: [] }],
      responses: {
        "200": {
          description: "The metrics.",
          content: { "text/plain": { schema: { type: "string" } } },
        },
        "401": problem("Missing or wrong key or token."),
        "429": problem("too_many_attempts: this client address sent too many wrong keys."),
        "503": problem(
          "service_unavailable: the web workers' metrics could not be gathered in time; database_unavailable: the database, which checks the admin key, cannot be used.",
        ),
      },
    },
  },
  "/openapi.json": {
    get: {
      operationId: "openApi",
      security: PUBLIC,
      summary: "This document.",
      responses: {
        "200": {
          description: "The OpenAPI 3.1 document.",
          content: { "application/json": { schema: { type: "object" } } },
        },
      },
    },
  },
  "/docs": {
    get: {
      operationId: "docs",
      security: PUBLIC,
      summary: "Interactive documentation of this document (Swagger UI, served from the service).",
      responses: {
        "200": {
          description: "The page.",
          content: { "text/html": { schema: { type: "string" } } },
        },
      },
    },
  },
};
