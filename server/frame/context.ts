import type { Db } from "@/db/client";
import {
  type AuthKeys,
  bearerToken,
  blockedFor,
  readSession,
  recordFailure,
  type Session,
} from "@/server/auth";
import { type Caller, callerOf, clientOf } from "@/server/callers";
import { ADMIN_KEY_MIN_LENGTH, type Config } from "@/server/frame/config";
import { mapKnownError } from "@/server/frame/errors";
import { getServices } from "@/server/frame/services";
import { AGENT_KEY_PREFIX, parseAgentKey } from "@/server/keys";
import type { Clock } from "@/server/kit/clock";
import { createModelRuntime, type ModelRuntime } from "@/server/model-call";

export type { Session };

/** Why there is no session, so that a 401 can say what to fix. */
export type Credentials = "none" | "invalid" | "valid" | "throttled";

/** Everything a procedure may use. Tests build it directly, with no HTTP. */
export type Context = {
  db: Db;
  /** The model provider and the process's cap on model calls. */
  model: ModelRuntime;
  clock: Clock;
  config: Config;
  session: Session | null;
  credentials: Credentials;
  /** Who is asking, for chat: its threads and rate-limit windows are its own. */
  caller: Caller;
  /** The keyed hash of the client's address: what throttles and per-client limits count by. */
  client: string;
  /** With credentials `throttled`: the seconds the client must wait. */
  throttledForS?: number;
  /** The id of the cookie's session, for signing out. */
  sessionId?: string;
  /** The request's id (X-Request-Id), for problems and log lines. */
  requestId?: string;
  auth: AuthKeys;
  /** When the service started, for uptime. */
  startedAt: Date;
  databaseKind?: "pglite" | "postgres";
  /** Response headers, where procedures set cookies; present on the /api/trpc path only. */
  resHeaders?: Headers;
};

type Optional =
  | "session"
  | "credentials"
  | "caller"
  | "client"
  | "startedAt"
  | "databaseKind"
  | "model"
  | "resHeaders";

/**
 * A context from its parts, with the defaults filled in: what createContext builds from a
 * request's headers, and what tests and the bench build directly, with no HTTP.
 */
export function createContextOf(
  options: Omit<Context, Optional> & Partial<Pick<Context, Optional>>,
): Context {
  const session = options.session ?? null;
  // Tests that name none are one client, and chat as the admin would or as that client.
  const client = options.client ?? "test-client";
  return {
    ...options,
    session,
    client,
    credentials: options.credentials ?? (session ? "valid" : "none"),
    caller: options.caller ?? callerOf({ session, client }),
    startedAt: options.startedAt ?? new Date(),
    model:
      options.model ?? createModelRuntime(options.config, { headerKey: options.auth.headerKey }),
  };
}

/** When this process started, for /health's uptime. */
export const startedAt = new Date(Date.now() - process.uptime() * 1000);

/**
 * The context of a request, built from its headers alone (REST and /api/trpc alike): the admin
 * key as a bearer token, or else (on the dashboard's paths only) the session cookie. A bearer token that is an
 * agent key is no admin credential: it names the caller of a chat. A client that sent too many
 * wrong keys is `throttled`: its credentials are not even looked at (server/auth/throttle.ts).
 */
export async function createContext({
  headers,
  resHeaders,
  cookies = true,
  requestId,
}: {
  headers: Headers;
  resHeaders?: Headers;
  requestId?: string;
  /** Whether the session cookie counts: the dashboard's paths only, never REST. */
  cookies?: boolean;
}): Promise<Context> {
  const { database, clock, config, auth, model } = await getServices();
  const db = database.db;
  const now = clock.now();
  const client = clientOf(headers, {
    trustProxy: config.chat.trustProxy,
    hashKey: auth.callerHashKey,
  });
  const token = bearerToken(headers);
  let session: Session | null = null;
  let credentials: Credentials = "none";
  let throttledForS: number | undefined;
  let sessionId: string | undefined;
  try {
    // Every bearer but a well-formed agent key is tried as the admin key, and a wrong one counts
    // toward the throttle: also one that starts with `ak_` but does not parse (its chat is
    // refused as an invalid key all the same, see callerOf). ADMIN_API_KEY is free-form and may
    // start with `ak_` itself (a generated one does once in 64³), so such a token may be a guess
    // at it, and left uncounted those guesses would go unthrottled. A well-formed agent key is
    // only checked against its own key's hash: its 32-byte secret is out of reach of guessing.
    if (
      token !== undefined &&
      token.length < ADMIN_KEY_MIN_LENGTH &&
      !token.startsWith(AGENT_KEY_PREFIX)
    ) {
      // Shorter than any admin key: not a guess at it, so neither counted nor looked up. A
      // caller of a public agent through OpenAI's clients must send some key ("anonymous").
      credentials = "invalid";
    } else if (token !== undefined && parseAgentKey(token) === undefined) {
      throttledForS = await blockedFor(db, client, now);
      if (throttledForS !== undefined) credentials = "throttled";
      else if (auth.adminKeyMatches(token)) {
        session = { role: "admin", via: "api_key" };
        credentials = "valid";
      } else {
        credentials = "invalid";
        await recordFailure(db, client, now);
      }
    } else if (token === undefined && cookies) {
      const found = await readSession(db, headers, {
        adminAddresses: config.siwe.adminAddresses,
        now,
      });
      session = found?.session ?? null;
      sessionId = found?.id;
      credentials = session ? "valid" : "none";
    }
  } catch (error) {
    // A database that cannot be reached is a 503 here too, for tRPC as for REST.
    throw mapKnownError(error) ?? error;
  }
  return createContextOf({
    db,
    model,
    clock,
    config,
    session,
    credentials,
    throttledForS,
    sessionId,
    requestId,
    client,
    caller: callerOf({ session, bearer: token, client }),
    auth,
    startedAt,
    databaseKind: database.kind,
    resHeaders,
  });
}
