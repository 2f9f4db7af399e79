import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import packageJson from "@/package.json" with { type: "json" };
import { databaseUnavailable } from "@/server/frame/errors";
import { STARTING_REASON } from "@/server/instance";

export const healthSchema = z
  .object({
    status: z.enum(["healthy", "unhealthy"]),
    database: z.enum(["ok", "timeout", "unreachable", "locked", "starting"]).meta({
      description:
        "`timeout`: no answer within 1 s; `unreachable`: the database cannot be reached or " +
        "(embedded) could not be opened; `locked`: the embedded database's data directory is in " +
        "use by another process; `starting`: the service is still opening the database and " +
        "applying its migrations (answered at once, with Retry-After).",
    }),
    reason: z
      .string()
      .optional()
      .meta({ description: "Why the database is not `ok`, in a sentence; only when it is not." }),
    database_kind: z.enum(["pglite", "postgres"]).optional(),
    provider: z.string().meta({ description: "The model provider that answers chats." }),
    version: z.string(),
    uptime_s: z.int().min(0),
  })
  .meta({ id: "Health" });

export type Health = z.infer<typeof healthSchema>;

export const DATABASE_CHECK_TIMEOUT_MS = 1000;

/** Asks the database a trivial question, bounded in time, and says how it went. */
export async function checkDatabase(
  db: Db,
  timeoutMs = DATABASE_CHECK_TIMEOUT_MS,
): Promise<Health["database"]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    return await Promise.race([db.execute(sql`SELECT 1`).then(() => "ok" as const), timeout]);
  } catch {
    return "unreachable";
  } finally {
    clearTimeout(timer);
  }
}

type HealthFacts = {
  startedAt: Date;
  now: Date;
  provider: string;
  databaseKind?: Health["database_kind"];
};

export async function checkHealth(
  { db, ...facts }: HealthFacts & { db: Db },
  timeoutMs?: number,
): Promise<Health> {
  return healthReport(await checkDatabase(db, timeoutMs), facts);
}

const REASONS: Record<Exclude<Health["database"], "ok">, string> = {
  timeout: "The database did not answer a trivial query in time.",
  unreachable: databaseUnavailable().detail,
  locked: "The embedded database's data directory is in use by another process.",
  starting: STARTING_REASON,
};

/**
 * The report for a database state; also what /health says when the database never opened
 * (then with the `reason` of that failure).
 */
export function healthReport(
  database: Health["database"],
  { startedAt, now, provider, databaseKind }: HealthFacts,
  reason?: string,
): Health {
  return {
    status: database === "ok" ? "healthy" : "unhealthy",
    database,
    ...(database === "ok" ? {} : { reason: reason ?? REASONS[database] }),
    ...(databaseKind ? { database_kind: databaseKind } : {}),
    provider,
    version: packageJson.version,
    uptime_s: Math.max(0, Math.floor((now.getTime() - startedAt.getTime()) / 1000)),
  };
}

export function healthOf(ctx: {
  db: Db;
  startedAt: Date;
  clock: { now(): Date };
  databaseKind?: Health["database_kind"];
  model: { provider: { name: string } };
}): Promise<Health> {
  return checkHealth({
    db: ctx.db,
    startedAt: ctx.startedAt,
    now: ctx.clock.now(),
    databaseKind: ctx.databaseKind,
    provider: ctx.model.provider.name,
  });
}
