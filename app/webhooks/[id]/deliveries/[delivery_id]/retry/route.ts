import { routeFor } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /webhooks/{id}/deliveries/{delivery_id}/retry: declared once in server/rest/endpoints/, with the OpenAPI document. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = routeFor(
  "/webhooks/{id}/deliveries/{delivery_id}/retry",
);
