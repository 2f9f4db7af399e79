import { routeFor } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /webhooks/{id}/rotate-secret: declared once in server/rest/endpoints/, with the OpenAPI document. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = routeFor("/webhooks/{id}/rotate-secret");
