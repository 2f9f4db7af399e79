import { restRoutes } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /{aid}/chat/{request_id}/cancel: a chat's cancel, an operation of server/routers (server/rest). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = restRoutes();
