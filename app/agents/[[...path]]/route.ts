import { restRoutes } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /agents and every path under it: the operations of server/routers (server/rest). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = restRoutes();
