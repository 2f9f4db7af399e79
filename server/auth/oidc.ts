import { randomBytes, timingSafeEqual } from "node:crypto";
import * as client from "openid-client";
import type { Db } from "@/db/client";
import { findAdminByEmail } from "@/server/admins";
import { recordChange } from "@/server/audit";
import type { Config, OidcConfig } from "@/server/frame/config";
import { AppError } from "@/server/frame/errors";
import type { Clock } from "@/server/kit/clock";
import { log } from "@/server/observability";
import { MAX_ATTEMPTS_PER_CLIENT, sha256, spendAttempt, storeAttempt } from "./oidc-attempts";
import { providerConfiguration } from "./oidc-discovery";
import { type OidcIdentity, type OidcRole, roleByRules } from "./oidc-role";
import { startSession } from "./session";
import { blockedFor, forgetFailures, recordFailure, tooManyAttempts } from "./throttle";
import { DASHBOARD_HOME, dashboardPathOrNull } from "./view";

/**
 * Dashboard sign-in with an OpenID provider: the authorization code flow with PKCE (S256), state
 * and nonce, by openid-client. GET /auth/oidc/start sends the browser to the provider; the
 * provider sends it back to GET /auth/oidc/callback, which spends the attempt, exchanges the
 * code, lets openid-client check the id token (signature, issuer, audience, nonce), and asks
 * roleByRules who this is. Every refusal is a redirect to the sign-in page with a code it turns
 * into a sentence: never a 500, never the provider's words. Refusals are audited and count
 * against the sign-in throttle like a wrong key.
 */

export const START_PATH = "/auth/oidc/start";
export const CALLBACK_PATH = "/auth/oidc/callback";

/**
 * The browser binding: a random value in a cookie of the browser that started the sign-in, whose
 * hash the attempt keeps. A callback URL sent to someone else's browser (login CSRF: signing a
 * victim in as the attacker) finds no cookie there and is refused.
 */
const BINDING_COOKIE = "agent_oidc_binding";

/** Why a sign-in was refused: the sign-in page's `?error=`, in words by view.ts's ssoErrorSentence. */
export type OidcRefusal =
  | "sso_expired"
  | "sso_browser"
  | "sso_refused"
  | "sso_failed"
  | "sso_not_allowed"
  | "sso_unavailable"
  | "too_many_attempts";

/** What the flow needs of the request's service: the HTTP handler (server/rest) gives it. */
export type OidcContext = {
  db: Db;
  clock: Clock;
  config: Pick<Config, "oidc" | "publicUrl">;
  /** The keyed hash of the client's address, as the sign-in throttle counts it. */
  client: string;
  requestId: string;
};

type Flow = { db: Db; clock: Clock; oidc: OidcConfig; publicUrl: string; secure: boolean };

function flowOf({ db, clock, config }: OidcContext): Flow {
  if (!config.oidc)
    throw new AppError(
      "not_found",
      "Sign in with SSO is not configured on this service (OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are unset).",
    );
  return {
    db,
    clock,
    oidc: config.oidc,
    publicUrl: config.publicUrl,
    secure: config.publicUrl.startsWith("https:"),
  };
}

/** GET /auth/oidc/start?next=…: a new attempt, and the browser sent to the provider with it. */
export async function startOidcSignIn(ctx: OidcContext, request: Request): Promise<Response> {
  const flow = flowOf(ctx);
  const configuration = await providerConfiguration(flow.oidc);
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const binding = randomBytes(32).toString("base64url");
  const next = dashboardPathOrNull(new URL(request.url).searchParams.get("next"));
  const now = flow.clock.now();
  // A client the throttle blocks could not finish; one with its share under way adds no rows.
  const waitS = await blockedFor(flow.db, ctx.client, now);
  if (waitS !== undefined) throw tooManyAttempts(waitS);
  const full = await storeAttempt(
    flow.db,
    { state, binding, client: ctx.client, codeVerifier, nonce, next },
    now,
  );
  if (full)
    throw new AppError(
      "too_many_attempts",
      `Too many SSO sign-ins are under way from your address (${MAX_ATTEMPTS_PER_CLIENT}); finish one, or try again in ${full.retryAfterS} s.`,
      { retryAfterS: full.retryAfterS },
    );
  const target = client.buildAuthorizationUrl(configuration, {
    redirect_uri: callbackUrl(flow),
    scope: flow.oidc.scopes,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  return redirect(target.href, bindingCookie(flow, binding, 600));
}

/** GET /auth/oidc/callback: the provider's answer, turned into a session or a refusal. */
export async function finishOidcSignIn(ctx: OidcContext, request: Request): Promise<Response> {
  const flow = flowOf(ctx);
  const { client: client_, requestId } = ctx;
  const url = new URL(request.url);
  const clearBinding = bindingCookie(flow, "", 0);
  let next: string | null = null;

  const refuse = async (
    code: OidcRefusal,
    reason: string,
    who: { email?: string | null } = {},
  ): Promise<Response> => {
    const now = flow.clock.now();
    // A blocked client's refusal is neither counted again (its block would only grow) nor
    // recorded: the throttle is what bounds the entries a client that is no admin can add.
    if (code !== "too_many_attempts")
      await flow.db.transaction(async (tx) => {
        await recordFailure(tx, client_, now);
        await recordChange(
          tx,
          { session: null, anonymous: true, requestId, client: client_ },
          {
            at: now,
            action: "sign_in.refused",
            target: `oidc:${who.email ?? flow.oidc.issuer}`,
            after: { reason, issuer: flow.oidc.issuer, ...(who.email ? { email: who.email } : {}) },
          },
        );
      });
    const params = new URLSearchParams({ error: code });
    if (code === "sso_not_allowed" && who.email) params.set("email", who.email);
    if (next && next !== DASHBOARD_HOME) params.set("next", next);
    return redirect(`/login?${params}`, clearBinding);
  };

  const waitS = await blockedFor(flow.db, client_, flow.clock.now());
  if (waitS !== undefined) return refuse("too_many_attempts", "throttled");

  // Spent first, whatever follows: a state is good for one callback, right or wrong.
  const state = url.searchParams.get("state");
  const attempt = state ? await spendAttempt(flow.db, state, flow.clock.now()) : null;
  if (!state || !attempt) return refuse("sso_expired", "unknown, expired or replayed state");
  next = attempt.next;
  if (!bindingMatches(request.headers, attempt.bindingHash))
    return refuse("sso_browser", "the browser binding cookie is missing or wrong");

  let configuration: client.Configuration;
  try {
    configuration = await providerConfiguration(flow.oidc);
  } catch {
    return refuse("sso_unavailable", "discovery failed");
  }

  let identity: OidcIdentity;
  try {
    identity = await identityOf(configuration, flow, url, { state, ...attempt });
  } catch (error) {
    // The provider said no (the person cancelled, or was denied): its error code, not its text.
    if (error instanceof client.AuthorizationResponseError)
      return refuse("sso_refused", `provider error: ${String(error.error).slice(0, 100)}`);
    const reason = failureReason(error);
    log.warn({ err: error, issuer: flow.oidc.issuer }, `OIDC sign-in refused: ${reason}`);
    return refuse("sso_failed", reason);
  }
  if (!identity.email)
    return refuse("sso_not_allowed", "the identity provider sent no email address");

  // The admins list first (a verified email only: an unverified one is whatever the person
  // typed at the provider), then the rules.
  const email = identity.email.toLowerCase();
  const listed = identity.emailVerified ? await findAdminByEmail(flow.db, email) : undefined;
  const ruleRole: OidcRole | null = roleByRules(identity, flow.oidc.roleRules);
  const role = listed?.role ?? ruleRole;
  if (!role)
    return refuse(
      "sso_not_allowed",
      "neither the admins list nor a rule allows this identity",
      identity,
    );

  const now = flow.clock.now();
  await forgetFailures(flow.db, client_);
  // The session and its entry together, or neither.
  const sessionCookie = await flow.db.transaction(async (tx) => {
    const made = await startSession(
      tx,
      { via: "oidc", email, ruleRole },
      { secure: flow.secure, now },
    );
    await recordChange(
      tx,
      {
        session: { via: "oidc", email, ...(listed ? { admin: listed.admin } : {}) },
        requestId,
        client: client_,
        sessionId: "signing-in",
      },
      {
        at: now,
        action: "sign_in.succeeded",
        target: listed ? `admin:${listed.admin}` : `oidc:${email}`,
        after: { via: "oidc", role, issuer: identity.issuer, subject: identity.subject },
      },
    );
    return made;
  });
  return redirect(next ?? DASHBOARD_HOME, sessionCookie, clearBinding);
}

/**
 * The code exchanged for tokens, the id token checked by openid-client (signature against the
 * provider's keys, issuer, audience, expiry, nonce; state and the `iss` parameter of the answer),
 * then the claims the rules read, from the id token or else the user info endpoint.
 */
async function identityOf(
  configuration: client.Configuration,
  flow: Flow,
  url: URL,
  attempt: { state: string; codeVerifier: string; nonce: string },
): Promise<OidcIdentity> {
  // The URL the provider redirected to, as registered (PUBLIC_URL's, not the one a proxy passed
  // on): openid-client sends it as the token request's redirect_uri.
  const current = new URL(callbackUrl(flow));
  current.search = url.search;
  const tokens = await client.authorizationCodeGrant(configuration, current, {
    pkceCodeVerifier: attempt.codeVerifier,
    expectedState: attempt.state,
    expectedNonce: attempt.nonce,
    idTokenExpected: true,
  });
  const idClaims = tokens.claims();
  if (!idClaims) throw new Error("no id token");
  let claims: Record<string, unknown> = { ...idClaims };
  const wanted = ["email", "email_verified", "groups"];
  if (
    wanted.some((name) => claims[name] === undefined) &&
    configuration.serverMetadata().userinfo_endpoint &&
    tokens.access_token
  ) {
    // fetchUserInfo checks that the user info is of the id token's subject.
    const info = await client.fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
    claims = { ...info, ...claims };
  }
  const email =
    typeof claims.email === "string" && claims.email.includes("@") ? claims.email : null;
  const groups = Array.isArray(claims.groups)
    ? claims.groups.filter((group): group is string => typeof group === "string")
    : typeof claims.groups === "string"
      ? [claims.groups]
      : [];
  return {
    issuer: idClaims.iss,
    subject: idClaims.sub,
    email,
    // Some providers send the boolean as a string.
    emailVerified: claims.email_verified === true || claims.email_verified === "true",
    groups,
  };
}

/**
 * What went wrong, for the audit log: openid-client's own codes and words down its chain of
 * causes (where the real reason is: "invalid response" wraps "signature verification failed"),
 * never the provider's text, of which only an OAuth error code is kept.
 */
function failureReason(error: unknown): string {
  if (error instanceof client.ResponseBodyError)
    return `token endpoint error: ${String(error.error).slice(0, 100)}`;
  const parts: string[] = [];
  for (let cause = error, depth = 0; cause instanceof Error && depth < 4; depth++) {
    const code = "code" in cause && typeof cause.code === "string" ? `${cause.code}: ` : "";
    parts.push(`${code}${cause.message}`);
    cause = cause.cause;
  }
  return parts.length > 0
    ? parts.join("; ").slice(0, 300)
    : "the provider's answer could not be used";
}

function callbackUrl(flow: Flow): string {
  return `${flow.publicUrl}${CALLBACK_PATH}`;
}

function bindingMatches(headers: Headers, expectedHash: string): boolean {
  const presented = cookieValue(headers, BINDING_COOKIE);
  if (!presented) return false;
  const a = Buffer.from(sha256(presented), "hex");
  const b = Buffer.from(expectedHash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieValue(headers: Headers, name: string): string | undefined {
  for (const part of headers.get("cookie")?.split(";") ?? []) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

/** HttpOnly, SameSite=Lax (sent on the provider's top-level redirect back), callback path only. */
function bindingCookie(flow: Flow, value: string, maxAgeS: number): string {
  return `${BINDING_COOKIE}=${value}; Path=${CALLBACK_PATH}; HttpOnly; SameSite=Lax; Max-Age=${maxAgeS}${flow.secure ? "; Secure" : ""}`;
}

function redirect(location: string, ...cookies: string[]): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 302, headers });
}
