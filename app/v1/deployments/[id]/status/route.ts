import { routeFor } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /v1/deployments/{id}/status: declared once in server/rest/endpoints/, with the OpenAPI document. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = routeFor("/v1/deployments/{id}/status");
