import { and, asc, eq, isNull } from "drizzle-orm";
import type { z } from "zod";
import { type AgentKeyRow, agentKeys } from "@/db/schema";
import { assertAgentExists } from "@/server/agents";
import { type AuditSource, recordChange } from "@/server/audit";
import type { DataContext } from "@/server/frame/data-context";
import { AppError } from "@/server/frame/errors";
import { newAgentKey } from "./format";
import type {
  agentKeyRefSchema,
  agentKeySchema,
  createdKeySchema,
  createKeyInputSchema,
  listKeysOutputSchema,
} from "./schema";

// A key is checked in every chat's own statement, so a revoked key is refused everywhere at once.

type KeysContext = DataContext;

/** More than any real use needs, and a bound on what one agent can hold. */
const MAX_KEYS_PER_AGENT = 1000;

export async function createKey(
  { db, clock, ...source }: KeysContext & AuditSource,
  input: z.output<typeof createKeyInputSchema>,
): Promise<z.output<typeof createdKeySchema>> {
  await assertAgentExists(db, input.aid);
  const active = await db
    .select({ id: agentKeys.id })
    .from(agentKeys)
    .where(and(eq(agentKeys.aid, input.aid), isNull(agentKeys.revokedAt)))
    .limit(MAX_KEYS_PER_AGENT);
  if (active.length >= MAX_KEYS_PER_AGENT) {
    throw new AppError(
      "conflict",
      `Agent '${input.aid}' has ${MAX_KEYS_PER_AGENT} keys already; revoke some first.`,
    );
  }
  const now = clock.now();
  const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
  if (expiresAt && expiresAt <= now) {
    throw new AppError(
      "validation_failed",
      "The request has invalid fields: expires_at must lie ahead; a key that never works is no key.",
      { errors: [{ field: "expires_at", detail: "must lie ahead" }] },
    );
  }
  const { id, key, secretHash } = newAgentKey();
  const shown = await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(agentKeys)
      .values({
        id,
        aid: input.aid,
        name: input.name,
        secretHash,
        createdAt: now,
        expiresAt,
        rateLimitRpm: input.rate_limit_rpm ?? null,
      })
      .returning();
    const created = presentKey(row as AgentKeyRow, now);
    // The key itself is shown once, to its maker, and never recorded.
    await recordChange(tx, source, {
      at: now,
      action: "agent_key.created",
      target: keyTarget(input.aid, id),
      after: created,
    });
    return created;
  });
  return { ...shown, key };
}

const keyTarget = (aid: string, id: string) => `agent_key:${aid}/${id}`;

export async function listKeys(
  { db, clock }: KeysContext,
  aid: string,
): Promise<z.output<typeof listKeysOutputSchema>> {
  await assertAgentExists(db, aid);
  const rows = await db
    .select()
    .from(agentKeys)
    .where(and(eq(agentKeys.aid, aid), isNull(agentKeys.revokedAt)))
    .orderBy(asc(agentKeys.createdAt), asc(agentKeys.id));
  const now = clock.now();
  return { keys: rows.map((row) => presentKey(row, now)) };
}

/** One key of the agent, without its secret; 404 if there is none, or it was revoked. */
export async function getKey(
  { db, clock }: KeysContext,
  { aid, id }: z.output<typeof agentKeyRefSchema>,
): Promise<z.output<typeof agentKeySchema>> {
  const [row] = await db
    .select()
    .from(agentKeys)
    .where(and(eq(agentKeys.aid, aid), eq(agentKeys.id, id), isNull(agentKeys.revokedAt)));
  if (!row) {
    await assertAgentExists(db, aid);
    throw new AppError("not_found", `Agent '${aid}' has no key '${id}'.`);
  }
  return presentKey(row, clock.now());
}

/** Revokes the key (it stays recorded, so its threads still name it); 404 if there is none. */
export async function revokeKey(
  { db, clock, ...source }: KeysContext & AuditSource,
  { aid, id }: z.output<typeof agentKeyRefSchema>,
): Promise<void> {
  const now = clock.now();
  const revoked = await db.transaction(async (tx) => {
    const rows = await tx
      .update(agentKeys)
      .set({ revokedAt: now })
      .where(and(eq(agentKeys.aid, aid), eq(agentKeys.id, id), isNull(agentKeys.revokedAt)))
      .returning();
    const [row] = rows;
    if (row)
      await recordChange(tx, source, {
        at: now,
        action: "agent_key.revoked",
        target: keyTarget(aid, id),
        before: presentKey({ ...row, revokedAt: null }, now),
      });
    return rows;
  });
  if (revoked.length === 0) {
    await assertAgentExists(db, aid);
    throw new AppError("not_found", `Agent '${aid}' has no key '${id}'.`);
  }
}

function presentKey(row: AgentKeyRow, now: Date): z.output<typeof agentKeySchema> {
  return {
    id: row.id,
    name: row.name,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
    expired: row.expiresAt !== null && row.expiresAt <= now,
    rate_limit_rpm: row.rateLimitRpm,
  };
}
