import { and, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { auditLog } from "@/db/schema";
import { beforeIdCursor, decodeCursor, keysetPage } from "@/server/pagination";
import type { AuditEntry, listAuditInputSchema, listAuditOutputSchema } from "./schema";

/** GET /audit: the newest first, filtered, in keyset pages by id. */
export async function listAudit(
  { db }: { db: Db },
  input: z.output<typeof listAuditInputSchema>,
): Promise<z.output<typeof listAuditOutputSchema>> {
  const before = input.cursor ? decodeCursor(input.cursor, beforeIdCursor).before : undefined;
  const where: (SQL | undefined)[] = [
    input.actor === undefined ? undefined : eq(auditLog.actor, input.actor),
    input.target === undefined ? undefined : eq(auditLog.target, input.target),
    input.action === undefined ? undefined : eq(auditLog.action, input.action),
    input.since === undefined ? undefined : gte(auditLog.at, new Date(input.since)),
    input.until === undefined ? undefined : lt(auditLog.at, new Date(input.until)),
    before === undefined ? undefined : lt(auditLog.id, before),
  ];
  const rows = await db
    .select()
    .from(auditLog)
    .where(and(...where))
    .orderBy(desc(auditLog.id))
    .limit(input.limit + 1);
  const { page, nextCursor } = keysetPage(rows, input.limit, (last) => ({ before: last.id }));
  return { entries: page.map(present), next_cursor: nextCursor };
}

function present(row: typeof auditLog.$inferSelect): AuditEntry {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: row.actor,
    actor_via: row.actorVia as AuditEntry["actor_via"],
    action: row.action,
    target: row.target,
    before: row.before ?? null,
    after: row.after ?? null,
    request_id: row.requestId,
    client: row.client,
  };
}

/** Deletes entries older than `days` (0: keep them all), in batches. */
export async function purgeOldAudit(db: Db, now: Date, days: number): Promise<void> {
  if (days === 0) return;
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  await db.delete(auditLog).where(lt(auditLog.at, cutoff));
}
