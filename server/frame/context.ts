import type { Db } from "@/db/client";
import { findAdminKey, parseAdminKey } from "@/server/admins";
import { parseAgentKey } from "@/server/agent-keys";
import {
  type AuthKeys,
  bearerToken,
  blockedFor,
  readSession,
  recordFailure,
  type Session,
} from "@/server/auth";
import { type Caller, callerOf, clientOf } from "@/server/callers";
import type { Config } from "@/server/frame/config";
import { mapKnownError } from "@/server/frame/errors";
import { getServices } from "@/server/frame/services";
import type { Clock } from "@/server/kit/clock";
import { createModelRuntime, type ModelRuntime } from "@/server/model-call";

export type { Session };

/** Why there is no session, so that a 401 can say what to fix. */
export type Credentials = "none" | "invalid" | "valid" | "throttled";

/** Everything a procedure may use. Tests build it directly, with no HTTP. */
export type Context = {
  db: Db;
  model: ModelRuntime;
  clock: Clock;
  config: Config;
  session: Session | null;
  credentials: Credentials;
  /** Who is asking, for chat: its threads and rate-limit windows are its own. */
  caller: Caller;
  /** The keyed hash of the client's address: what throttles and per-client limits count by. */
  client: string;
  throttledForS?: number;
  sessionId?: string;
  requestId?: string;
  auth: AuthKeys;
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

/** A context from its parts, defaults filled in: tests and the bench build it without HTTP. */
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
      options.model ??
      createModelRuntime(options.config, {
        headerKey: options.auth.headerKey,
        endpointKey: options.auth.endpointKey,
      }),
  };
}

export const startedAt = new Date(Date.now() - process.uptime() * 1000);

/**
 * The context of a request, from its headers alone: the admin key as a bearer token, or on the
 * dashboard's paths the session cookie. A bearer agent key names a chat's caller, no admin.
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
    // A personal admin key is looked up by its id; a wrong one is no guess at the admin key (its
    // 32-byte secret is out of reach of guessing), so it is refused without counting, as a
    // well-formed agent key is. A bearer that could be the admin key is tried as it, and a wrong
    // one counts toward the throttle. One that cannot (another length, an OpenAI `sk-` key) is
    // neither counted nor looked up: OpenAI's clients must send some key.
    const personal = token === undefined ? undefined : parseAdminKey(token);
    if (personal) {
      const found = await findAdminKey(db, personal, now);
      if (found) {
        session = { role: found.role, via: "personal_key", admin: found.admin, key: found.key };
        credentials = "valid";
      } else credentials = "invalid";
    } else if (
      token !== undefined &&
      parseAgentKey(token) === undefined &&
      !auth.couldBeAdminKey(token)
    ) {
      credentials = "invalid";
    } else if (token !== undefined && parseAgentKey(token) === undefined) {
      throttledForS = await blockedFor(db, client, now);
      if (throttledForS !== undefined) credentials = "throttled";
      else if (auth.adminKeyMatches(token)) {
        session = { role: "owner", via: "api_key" };
        credentials = "valid";
      } else {
        credentials = "invalid";
        await recordFailure(db, client, now);
      }
    } else if (token === undefined && cookies) {
      const found = await readSession(db, headers, {
        adminAddresses: config.siwe.adminAddresses,
        adminKeyFingerprint: auth.adminKeyFingerprint,
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
