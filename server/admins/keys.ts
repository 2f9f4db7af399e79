import { and, eq, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import { adminKeys, admins } from "@/db/schema";
import { type AuditSource, recordChange } from "@/server/audit";
import type { DataContext } from "@/server/frame/data-context";
import { AppError, invalidFields } from "@/server/frame/errors";
import { newAdminKey, type PresentedAdminKey } from "./format";
import { type AdminRole, lowerRole, roleAtLeast } from "./roles";
import type { adminKeyRefSchema, createAdminKeyInputSchema, createdAdminKeySchema } from "./schema";
import { MAX_KEY_DAYS } from "./schema";
import { adminTarget, noSuchAdmin, presentAdminKey } from "./store";

/** More than one person needs (a key per machine), and a bound on what one person can hold. */
export const MAX_KEYS_PER_ADMIN = 50;
const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_KEY_DAYS = 90;

export async function createAdminKey(
  { db, clock, ...source }: DataContext & AuditSource,
  input: z.output<typeof createAdminKeyInputSchema>,
): Promise<z.output<typeof createdAdminKeySchema>> {
  const now = clock.now();
  const expiresAt = input.expires_at
    ? new Date(input.expires_at)
    : new Date(now.getTime() + DEFAULT_KEY_DAYS * DAY_MS);
  if (expiresAt <= now || expiresAt.getTime() > now.getTime() + MAX_KEY_DAYS * DAY_MS)
    throw invalidFields([
      { field: "expires_at", detail: `must lie ahead, and at most ${MAX_KEY_DAYS} days ahead` },
    ]);
  const { id, key, secretHash } = newAdminKey();
  const shown = await db.transaction(async (tx) => {
    // Locked, so that a change of the person's role cannot pass between the check and the insert.
    const [person] = await tx.select().from(admins).where(eq(admins.id, input.id)).for("update");
    if (!person) throw noSuchAdmin(input.id);
    const role = input.role ?? person.role;
    if (!roleAtLeast(person.role, role))
      throw invalidFields([
        { field: "role", detail: `must be at most the person's role (${person.role})` },
      ]);
    const held = await tx
      .select({ id: adminKeys.id })
      .from(adminKeys)
      .where(eq(adminKeys.adminId, input.id))
      .limit(MAX_KEYS_PER_ADMIN);
    if (held.length >= MAX_KEYS_PER_ADMIN)
      throw new AppError(
        "conflict",
        `Admin '${input.id}' has ${MAX_KEYS_PER_ADMIN} keys already; revoke some first.`,
      );
    const [row] = await tx
      .insert(adminKeys)
      .values({
        id,
        adminId: input.id,
        name: input.name,
        role,
        secretHash,
        createdAt: now,
        expiresAt,
      })
      .returning();
    const created = { ...presentAdminKey(row as NonNullable<typeof row>, now), admin_id: input.id };
    // The key itself is shown once, to its maker, and never recorded.
    await recordChange(tx, source, {
      at: now,
      action: "admin_key.created",
      target: keyTarget(input.id, id),
      after: created,
    });
    return created;
  });
  return { ...shown, key };
}

/** Deletes the key; the sessions opened with it end with it (a foreign key's cascade). */
export async function revokeAdminKey(
  { db, clock, ...source }: DataContext & AuditSource,
  { id, key_id }: z.output<typeof adminKeyRefSchema>,
): Promise<void> {
  const now = clock.now();
  await db.transaction(async (tx) => {
    const [row] = await tx
      .delete(adminKeys)
      .where(and(eq(adminKeys.adminId, id), eq(adminKeys.id, key_id)))
      .returning();
    if (!row) throw new AppError("not_found", `Admin '${id}' has no key '${key_id}'.`);
    await recordChange(tx, source, {
      at: now,
      action: "admin_key.revoked",
      target: keyTarget(id, key_id),
      before: { ...presentAdminKey(row, now), admin_id: id },
    });
  });
}

const keyTarget = (admin: string, key: string) => `${adminTarget(admin)}/${key}`;

export type AdminByKey = { admin: string; key: string; role: AdminRole };

/**
 * The person and role a presented key acts for: the lower of the key's and the person's, so
 * that lowering a person lowers their keys at once. Undefined: no such key, a wrong secret, or
 * expired.
 */
export async function findAdminKey(
  db: Db,
  presented: PresentedAdminKey,
  now: Date,
): Promise<AdminByKey | undefined> {
  const [row] = await adminKeyById(db).execute({ id: presented.id, now: now.toISOString() });
  // The hash is compared in the statement's row, not by the index: a wrong secret is no key.
  if (!row || row.secretHash !== presented.secretHash) return undefined;
  return { admin: row.adminId, key: presented.id, role: lowerRole(row.keyRole, row.adminRole) };
}

function adminKeyById(db: Db) {
  return prepared(db, "admin-key-by-id", () =>
    db
      .select({
        adminId: adminKeys.adminId,
        secretHash: adminKeys.secretHash,
        keyRole: adminKeys.role,
        adminRole: admins.role,
      })
      .from(adminKeys)
      .innerJoin(admins, eq(admins.id, adminKeys.adminId))
      .where(
        and(
          eq(adminKeys.id, sql.placeholder("id")),
          sql`${adminKeys.expiresAt} > ${sql.placeholder("now")}::timestamptz`,
        ),
      )
      .prepare("admin_key_by_id"),
  );
}
