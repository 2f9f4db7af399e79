import { routeFor } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /agents/{aid}/threads/{chat_id}/messages: declared once in server/rest/endpoints/, with the OpenAPI document. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = routeFor(
  "/agents/{aid}/threads/{chat_id}/messages",
);
