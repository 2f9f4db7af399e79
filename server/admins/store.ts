import { asc, eq, inArray } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { codesOf } from "@/db/failures";
import { type AdminKeyRow, type AdminRow, adminKeys, admins } from "@/db/schema";
import { type AuditSource, recordChange } from "@/server/audit";
import type { DataContext } from "@/server/frame/data-context";
import { AppError, invalidFields } from "@/server/frame/errors";
import { newAdminId } from "./format";
import type {
  adminListSchema,
  adminSchema,
  createAdminInputSchema,
  updateAdminInputSchema,
} from "./schema";

// The people who administer the service. Only an owner changes them (server/routers/admins.ts);
// each change is audited in its own transaction.

type Admin = z.output<typeof adminSchema>;

/** More than any team needs, and a bound on what the table can hold. */
export const MAX_ADMINS = 1000;

export async function listAdmins({
  db,
  clock,
}: DataContext): Promise<z.output<typeof adminListSchema>> {
  const rows = await db.select().from(admins).orderBy(asc(admins.createdAt), asc(admins.id));
  const keys = await keysOf(
    db,
    rows.map((row) => row.id),
  );
  const now = clock.now();
  return { admins: rows.map((row) => presentAdmin(row, keys.get(row.id) ?? [], now)) };
}

export async function getAdmin({ db, clock }: DataContext, id: string): Promise<Admin> {
  const [row] = await db.select().from(admins).where(eq(admins.id, id));
  if (!row) throw noSuchAdmin(id);
  return presentAdmin(row, (await keysOf(db, [id])).get(id) ?? [], clock.now());
}

export async function createAdmin(
  { db, clock, ...source }: DataContext & AuditSource,
  input: z.output<typeof createAdminInputSchema>,
): Promise<Admin> {
  if (!input.wallet && !input.email) throw invalidFields([{ field: "wallet", detail: NO_WAY_IN }]);
  const now = clock.now();
  return db.transaction(async (tx) => {
    const counted = await tx.select({ id: admins.id }).from(admins).limit(MAX_ADMINS);
    if (counted.length >= MAX_ADMINS)
      throw new AppError("conflict", `There are ${MAX_ADMINS} admins already; remove some first.`);
    const [row] = await tx
      .insert(admins)
      .values({
        id: newAdminId(),
        name: input.name,
        wallet: input.wallet ?? null,
        email: input.email ?? null,
        role: input.role,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) throw taken();
    const created = presentAdmin(row, [], now);
    await recordChange(tx, source, {
      at: now,
      action: "admin.created",
      target: adminTarget(row.id),
      after: audited(created),
    });
    return created;
  });
}

export async function updateAdmin(
  { db, clock, ...source }: DataContext & AuditSource,
  { id, ...changes }: z.output<typeof updateAdminInputSchema>,
): Promise<Admin> {
  const now = clock.now();
  try {
    return await db.transaction(async (tx) => {
      const [before] = await tx.select().from(admins).where(eq(admins.id, id)).for("update");
      if (!before) throw noSuchAdmin(id);
      const wallet = changes.wallet === undefined ? before.wallet : changes.wallet;
      const email = changes.email === undefined ? before.email : changes.email;
      if (!wallet && !email) throw invalidFields([{ field: "wallet", detail: NO_WAY_IN }]);
      const [row] = await tx
        .update(admins)
        .set({
          name: changes.name ?? before.name,
          wallet,
          email,
          role: changes.role ?? before.role,
          updatedAt: now,
        })
        .where(eq(admins.id, id))
        .returning();
      const keys = (await keysOf(tx, [id])).get(id) ?? [];
      const after = presentAdmin(row as AdminRow, keys, now);
      await recordChange(tx, source, {
        at: now,
        action: "admin.updated",
        target: adminTarget(id),
        before: audited(presentAdmin(before, keys, now)),
        after: audited(after),
      });
      return after;
    });
  } catch (error) {
    // 23505: the wallet or email is another admin's.
    if (codesOf(error).includes("23505")) throw taken();
    throw error;
  }
}

/** Removes the person, their keys and the sessions opened with them; their wallet's sessions lose the role at once. */
export async function deleteAdmin(
  { db, clock, ...source }: DataContext & AuditSource,
  id: string,
): Promise<void> {
  const now = clock.now();
  await db.transaction(async (tx) => {
    const keys = (await keysOf(tx, [id])).get(id) ?? [];
    const [row] = await tx.delete(admins).where(eq(admins.id, id)).returning();
    if (!row) throw noSuchAdmin(id);
    await recordChange(tx, source, {
      at: now,
      action: "admin.deleted",
      target: adminTarget(id),
      before: audited(presentAdmin(row, keys, now)),
    });
  });
}

export const adminTarget = (id: string) => `admin:${id}`;

export const noSuchAdmin = (id: string) => new AppError("not_found", `There is no admin '${id}'.`);

function taken() {
  return new AppError("conflict", "Another admin has that wallet or email; one person, one entry.");
}

/** A person with neither a wallet nor an email could never sign in. */
const NO_WAY_IN =
  "is needed when there is no email: a person signs in with a wallet, an email or both";

/** An admin as the audit log keeps it: their keys are recorded as changes of their own. */
const audited = ({ keys: _keys, ...admin }: Admin) => admin;

async function keysOf(db: Db, ids: string[]): Promise<Map<string, AdminKeyRow[]>> {
  const byAdmin = new Map<string, AdminKeyRow[]>();
  if (ids.length === 0) return byAdmin;
  const rows = await db
    .select()
    .from(adminKeys)
    .where(inArray(adminKeys.adminId, ids))
    .orderBy(asc(adminKeys.createdAt), asc(adminKeys.id));
  for (const row of rows) byAdmin.set(row.adminId, [...(byAdmin.get(row.adminId) ?? []), row]);
  return byAdmin;
}

export function presentAdmin(row: AdminRow, keys: AdminKeyRow[], now: Date): Admin {
  return {
    id: row.id,
    name: row.name,
    wallet: row.wallet,
    email: row.email,
    role: row.role,
    keys: keys.map((key) => presentAdminKey(key, now)),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentAdminKey(row: AdminKeyRow, now: Date) {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    expired: row.expiresAt <= now,
  };
}

/** The person a wallet is in the admins list, if any. */
export async function findAdminByWallet(
  db: Db,
  address: string,
): Promise<{ admin: string; role: AdminRow["role"] } | undefined> {
  const [row] = await db
    .select({ admin: admins.id, role: admins.role })
    .from(admins)
    .where(eq(admins.wallet, address.toLowerCase()));
  return row;
}

/** The person an email is in the admins list, if any (emails are kept lowercase). */
export async function findAdminByEmail(
  db: Db,
  email: string,
): Promise<{ admin: string; role: AdminRow["role"] } | undefined> {
  const [row] = await db
    .select({ admin: admins.id, role: admins.role })
    .from(admins)
    .where(eq(admins.email, email.toLowerCase()));
  return row;
}
