import { routeFor } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /requests/breakdown: declared once in server/rest/endpoints/, with the OpenAPI document. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = routeFor("/requests/breakdown");
