import { restRoutes } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /{aid}/.well-known/agent-card.json: the agent's A2A card, an operation of server/routers. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = restRoutes();
