import { restRoutes } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /admins: the people who administer the service, operations of server/routers (server/rest). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = restRoutes();
