import { restRoutes } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /{aid}/a2a: the agent's A2A server, an operation of server/routers (server/rest). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = restRoutes();
