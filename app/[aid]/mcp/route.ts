import { restRoutes } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /{aid}/mcp: the agent's MCP server, an operation of server/routers (server/rest). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = restRoutes();
