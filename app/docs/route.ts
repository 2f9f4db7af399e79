import { routeFor } from "@/server/rest";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE } = routeFor("/docs");
