import { restRoutes } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /docs and every path under it: the operations of server/routers (server/rest). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = restRoutes();
