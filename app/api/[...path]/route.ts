import { restRoutes } from "@/server/rest";

export const dynamic = "force-dynamic";

/** Paths under /api other than /api/trpc: no operation is there, so each is a 404 problem. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = restRoutes();
