import { restRoutes } from "@/server/rest";

export const dynamic = "force-dynamic";

/** Every path under /v1: the operations of server/routers (server/rest). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = restRoutes();
