import { restRoutes } from "@/server/rest";

export const dynamic = "force-dynamic";

/** /auth and every path under it: Sign in with SSO's start and callback (server/rest/sign-in.ts). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE } = restRoutes();
