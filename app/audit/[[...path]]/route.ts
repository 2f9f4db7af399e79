import { restRoutes } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /audit: the audit log, an operation of server/routers (server/rest). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = restRoutes();
