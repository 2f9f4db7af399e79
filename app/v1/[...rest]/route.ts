import { notFoundRoute } from "@/server/rest";

export const dynamic = "force-dynamic";

/** Paths under the API that do not exist: 404 problem details. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = notFoundRoute();
