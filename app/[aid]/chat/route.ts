import { restRoutes } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /{aid}/chat: the chat operation of server/routers (server/rest). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = restRoutes();
