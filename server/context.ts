import type { Db } from "@/db/client";
import { bearerToken, isAdminKey } from "@/server/auth/admin-key";
import { type ChatRuntime, createChatRuntime } from "@/server/chat/runtime";
import type { Clock } from "@/server/clock";
import type { Config } from "@/server/config";
import { getServices } from "@/server/services";

export type Session = { role: "admin"; via: "api_key" };

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
  /** When the service started, for uptime. */
  startedAt: Date;
  databaseKind?: "pglite" | "postgres";
};

export function createInnerContext(
  options: Pick<InnerContext, "db" | "clock" | "config"> &
    Partial<Pick<InnerContext, "session" | "credentials" | "startedAt" | "databaseKind" | "chat">>,
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

/** The context of a request, built from its headers alone (REST and /api/trpc alike). */
export async function createContext({ headers }: { headers: Headers }): Promise<InnerContext> {
  const { database, clock, config, adminKey, chat } = await getServices();
  const token = bearerToken(headers);
  const admin = token !== undefined && isAdminKey(token, adminKey.key);
  return createInnerContext({
    db: database.db,
    chat,
    clock,
    config,
    session: admin ? { role: "admin", via: "api_key" } : null,
    credentials: token === undefined ? "none" : admin ? "valid" : "invalid",
    startedAt,
    databaseKind: database.kind,
  });
}

export type Context = InnerContext;
