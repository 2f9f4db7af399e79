import type { Db } from "@/db/client";
import { type AuthKeys, bearerToken } from "@/server/auth/admin-key";
import { readSession, type Session } from "@/server/auth/session";
import { type ChatRuntime, createChatRuntime } from "@/server/chat/runtime";
import type { Clock } from "@/server/clock";
import type { Config } from "@/server/config";
import { getServices } from "@/server/services";

export type { Session };

/** Why there is no session, so that a 401 can say what to fix. */
export type Credentials = "none" | "invalid" | "valid";

/** Everything a procedure may use. Tests build it directly, with no HTTP. */
export type InnerContext = {
  db: Db;
  /** The model provider and the process's cap on model calls. */
  chat: ChatRuntime;
  clock: Clock;
  config: Config;
  session: Session | null;
  credentials: Credentials;
  auth: AuthKeys;
  /** When the service started, for uptime. */
  startedAt: Date;
  databaseKind?: "pglite" | "postgres";
  /** Response headers, where procedures set cookies; present on the /api/trpc path only. */
  resHeaders?: Headers;
};

type Optional = "session" | "credentials" | "startedAt" | "databaseKind" | "chat" | "resHeaders";

export function createInnerContext(
  options: Omit<InnerContext, Optional> & Partial<Pick<InnerContext, Optional>>,
): InnerContext {
  return {
    ...options,
    session: options.session ?? null,
    credentials: options.credentials ?? (options.session ? "valid" : "none"),
    startedAt: options.startedAt ?? new Date(),
    chat: options.chat ?? createChatRuntime(options.config),
  };
}

/** When this process started, for /health's uptime. */
export const startedAt = new Date(Date.now() - process.uptime() * 1000);

/**
 * The context of a request, built from its headers alone (REST and /api/trpc alike): the admin
 * key as a bearer token, or else the dashboard's session cookie.
 */
export async function createContext({
  headers,
  resHeaders,
}: {
  headers: Headers;
  resHeaders?: Headers;
}): Promise<InnerContext> {
  const { database, clock, config, auth, chat } = await getServices();
  const token = bearerToken(headers);
  const admin = token !== undefined && auth.adminKeyMatches(token);
  const session: Session | null = admin
    ? { role: "admin", via: "api_key" }
    : token === undefined
      ? await readSession(headers, {
          key: auth.sessionKey,
          adminAddresses: config.siwe.adminAddresses,
          now: clock.now(),
        })
      : null;
  return createInnerContext({
    db: database.db,
    chat,
    clock,
    config,
    session,
    credentials: token === undefined ? (session ? "valid" : "none") : admin ? "valid" : "invalid",
    auth,
    startedAt,
    databaseKind: database.kind,
    resHeaders,
  });
}

export type Context = InnerContext;
