import { z } from "zod";
import { finishOidcSignIn, type OidcContext, startOidcSignIn } from "@/server/auth";
import { clientOf } from "@/server/callers";
import { getServices } from "@/server/frame/services";
import { databaseUnavailable, PUBLIC, problem } from "@/server/http";
import type { Operation } from "./operation";
import { bareOperation } from "./operator";

// Sign in with SSO (server/auth/oidc.ts): two paths a browser is sent to, not API calls. They are
// bare operations (they answer with redirects and cookies, not a procedure's JSON), declared
// here once so that the server entry and Next.js (app/auth) serve them alike, and the document
// lists them with the callback URL to register at the provider.

async function contextOf(request: Request, requestId: string): Promise<OidcContext> {
  const { database, clock, config, auth } = await getServices();
  return {
    db: database.db,
    clock,
    config,
    client: clientOf(request.headers, {
      trustProxy: config.chat.trustProxy,
      hashKey: auth.callerHashKey,
    }),
    requestId,
  };
}

const notConfigured = problem(
  "not_found: Sign in with SSO is not configured (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET).",
);

export const signInOperations: Operation[] = [
  bareOperation({
    method: "GET",
    path: "/auth/oidc/start",
    operationId: "startSsoSignIn",
    tag: "signIn",
    security: PUBLIC,
    summary: "Sign in with SSO: sends the browser to the OpenID provider (code flow with PKCE).",
    description:
      "Where the sign-in page's \"Sign in with SSO\" leads. Starts an attempt (state, nonce, PKCE verifier; valid 10 minutes; at most 20 under way per client address), gives the browser a short-lived HttpOnly cookie that binds the attempt to it, and redirects to the provider's authorization endpoint.",
    bareQuery: z.object({
      next: z.string().max(2000).optional().meta({
        description:
          "The dashboard page to go to once signed in (a path under /dashboard; anything else is ignored).",
      }),
    }),
    answer: async ({ request, requestId }) =>
      startOidcSignIn(await contextOf(request, requestId), request),
    answers: {
      302: {
        description:
          "To the provider's authorization endpoint; Set-Cookie carries the browser binding.",
        empty: true,
      },
    },
    refusals: {
      404: notConfigured,
      429: problem(
        "too_many_attempts: the client is blocked by the sign-in throttle, or has 20 sign-ins under way (each valid 10 minutes, freed when finished); Retry-After says when to try again.",
      ),
      503: problem(
        "service_unavailable: the provider's discovery document could not be read, or names another issuer than OIDC_ISSUER (Retry-After says when to try again); database_unavailable: the database cannot be used.",
      ),
    },
  }),
  bareOperation({
    method: "GET",
    path: "/auth/oidc/callback",
    operationId: "finishSsoSignIn",
    tag: "signIn",
    security: PUBLIC,
    summary:
      "Sign in with SSO: the redirect URI to register at the provider (<PUBLIC_URL>/auth/oidc/callback).",
    description:
      "The provider sends the browser here. The attempt its state names is spent (a state works once), the browser binding cookie checked, the code exchanged, the id token verified (signature, issuer, audience, nonce) and OIDC_ROLE_RULES applied. Signed in: a redirect to the page asked for, with the session cookie. Refused: a redirect to `/login?error=<code>` (`sso_expired`, `sso_browser`, `sso_refused`, `sso_failed`, `sso_not_allowed`, `sso_unavailable`, `too_many_attempts`); each refusal is in the audit log as `sign_in.refused`, and counts against the client's sign-in throttle.",
    bareQuery: z.object({
      code: z.string().optional().meta({ description: "The authorization code." }),
      state: z.string().optional().meta({ description: "The attempt's state." }),
      iss: z.string().optional().meta({ description: "The issuer (RFC 9207), when sent." }),
      error: z.string().optional().meta({ description: "The provider's refusal, if any." }),
    }),
    answer: async ({ request, requestId }) =>
      finishOidcSignIn(await contextOf(request, requestId), request),
    answers: {
      302: {
        description:
          "Signed in (to the dashboard, with the session cookie) or refused (to /login?error=<code>).",
        empty: true,
      },
    },
    refusals: { 404: notConfigured, 503: databaseUnavailable },
  }),
];
