import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import { findAdminKey, parseAdminKey } from "@/server/admins";
import type { Session } from "@/server/auth";
import { fixedClock } from "@/server/kit/clock";
import { callerFor, problemOf } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";

const START = "2026-11-29T10:00:00Z";
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Issue #49, item 1: admins are people with a role, and have their own keys, each with a role no
 * higher than its person's and an expiry. A key acts with the lower of its role and its person's
 * as they are now; revoking it, or removing the person, stops it at once. Only owners change
 * admins; each change is audited, and a key's secret never is.
 */
describe.each(DATABASE_KINDS)("admins and their keys on %s", (kind) => {
  const clock = fixedClock(START);
  const testDatabase = useTestDatabase(kind, { clock, start: START });
  const owner = () => callerFor(testDatabase().db, { clock });
  const as = (session: Session) => callerFor(testDatabase().db, { clock, session });
  const keyOf = async (key: string) =>
    findAdminKey(testDatabase().db, parseAdminKey(key) as never, clock.now());

  it("adds people with roles and gives them keys no higher than their role", async () => {
    const ada = await owner().admins.create({
      name: "Ada",
      email: "Ada@Example.com",
      role: "operator",
    });
    expect(ada).toMatchObject({ email: "ada@example.com", wallet: null, role: "operator" });
    expect(await owner().admins.get({ id: ada.id })).toEqual(ada);

    const made = await owner().admins.createKey({ id: ada.id, name: "laptop" });
    expect(made.key).toMatch(new RegExp(`^admk_${made.id}_[A-Za-z0-9_-]{43}$`));
    expect(made).toMatchObject({ role: "operator", admin_id: ada.id, expired: false });
    // Ninety days unless told.
    expect(Date.parse(made.expires_at) - clock.now().getTime()).toBe(90 * DAY_MS);
    expect(await keyOf(made.key)).toEqual({ admin: ada.id, key: made.id, role: "operator" });

    const above = await problemOf(
      owner().admins.createKey({ id: ada.id, name: "too high", role: "owner" }),
    );
    expect(above).toMatchObject({ status: 400 });
    expect(above.detail).toContain("at most the person's role (operator)");
    // Neither a wallet nor an email: no way to sign in, said on the field.
    expect(
      await problemOf(owner().admins.create({ name: "Nobody", role: "viewer" })),
    ).toMatchObject({
      status: 400,
      detail:
        "The request has invalid fields: wallet is needed when there is no email: a person signs in with a wallet, an email or both.",
      errors: [{ field: "wallet" }],
    });
    const tooLong = await problemOf(
      owner().admins.createKey({
        id: ada.id,
        name: "forever",
        expires_at: new Date(clock.now().getTime() + 400 * DAY_MS).toISOString(),
      }),
    );
    expect(tooLong.detail).toContain("at most 366 days ahead");

    // A wrong secret with the right id is no key.
    const forged = `${made.key.slice(0, -4)}AAAA`;
    expect(await keyOf(forged)).toBeUndefined();

    // Lowering the person lowers the key at once; the key's own role stays as made.
    await owner().admins.update({ id: ada.id, role: "viewer" });
    expect(await keyOf(made.key)).toMatchObject({ role: "viewer" });
    expect((await owner().admins.get({ id: ada.id })).keys[0]?.role).toBe("operator");

    // Expired, it is no key.
    clock.advance(91 * DAY_MS);
    expect(await keyOf(made.key)).toBeUndefined();
    expect((await owner().admins.get({ id: ada.id })).keys[0]?.expired).toBe(true);
  });

  it("revoking a key or removing its person stops it at once", async () => {
    const grace = await owner().admins.create({
      name: "Grace",
      wallet: "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
      role: "owner",
    });
    expect(grace.wallet).toBe("0x5b38da6a701c568545dcfcb03fcb875f56beddc4");
    const one = await owner().admins.createKey({ id: grace.id, name: "one", role: "viewer" });
    const two = await owner().admins.createKey({ id: grace.id, name: "two" });
    await owner().admins.revokeKey({ id: grace.id, key_id: one.id });
    expect(await keyOf(one.key)).toBeUndefined();
    expect(await keyOf(two.key)).toMatchObject({ role: "owner" });
    expect(
      (await problemOf(owner().admins.revokeKey({ id: grace.id, key_id: one.id }))).status,
    ).toBe(404);
    await owner().admins.delete({ id: grace.id });
    expect(await keyOf(two.key)).toBeUndefined();
    expect((await problemOf(owner().admins.get({ id: grace.id }))).status).toBe(404);
  });

  it("one person, one entry: a wallet or email is no one else's", async () => {
    await owner().admins.create({ name: "A", email: "a@example.com", role: "viewer" });
    clock.advance(1000);
    const b = await owner().admins.create({ name: "B", email: "b@example.com", role: "viewer" });
    expect(
      await problemOf(owner().admins.create({ name: "A2", email: "A@example.com", role: "owner" })),
    ).toMatchObject({ status: 409 });
    expect(
      await problemOf(owner().admins.update({ id: b.id, email: "a@example.com" })),
    ).toMatchObject({ status: 409 });
    const none = await problemOf(owner().admins.create({ name: "C", role: "viewer" }));
    expect(none).toMatchObject({ status: 400 });
    expect(await problemOf(owner().admins.update({ id: b.id, email: null }))).toMatchObject({
      status: 400,
    });
    const names = (await owner().admins.list()).admins.map((a) => a.name);
    expect(names.filter((name) => name === "A" || name === "B")).toEqual(["A", "B"]);
  });

  it("each role does what it may, and is refused the rest with a sentence", async () => {
    const person = await owner().admins.create({
      name: "P",
      email: "p@example.com",
      role: "owner",
    });
    const session = (role: "viewer" | "operator" | "owner"): Session => ({
      role,
      via: "personal_key",
      admin: person.id,
      key: "000000000000",
    });
    const viewer = as(session("viewer"));
    expect((await viewer.agents.list({})).agents).toEqual([]);
    const refused = await problemOf(viewer.agents.upsert({ aid: "nope" }));
    expect(refused).toMatchObject({ status: 403 });
    expect(refused.detail).toBe(
      "This needs the operator role (changing agents, keys, quotas, prices, webhooks and deployments); you are signed in as a viewer.",
    );
    const operator = as(session("operator"));
    await operator.agents.upsert({ aid: "made-by-operator" });
    expect(
      (
        await problemOf(
          operator.admins.create({ name: "X", email: "x@example.com", role: "viewer" }),
        )
      ).detail,
    ).toBe(
      "This needs the owner role (changing admins and roles, and signing everyone out); you are signed in as an operator.",
    );
    const wallet = as({
      role: "wallet",
      via: "wallet",
      address: "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
    });
    expect((await problemOf(wallet.agents.list({}))).detail).toBe(
      "This needs an admin; your wallet is not one.",
    );
    // The change is the person's, through their key, in the audit log.
    const { entries } = await owner().audit.list({ target: "agent:made-by-operator" });
    expect(entries.map((e) => [e.actor, e.actor_via])).toEqual([[`admin:${person.id}`, "key"]]);
  });

  it("audits every change of admins and keys, never a key's secret", async () => {
    const person = await owner().admins.create({
      name: "Q",
      email: "q@example.com",
      role: "operator",
    });
    await owner().admins.update({ id: person.id, role: "viewer" });
    const key = await owner().admins.createKey({ id: person.id, name: "ci" });
    await owner().admins.revokeKey({ id: person.id, key_id: key.id });
    await owner().admins.delete({ id: person.id });
    const { entries: all } = await owner().audit.list({ limit: 100 });
    const entries = all.filter((e) => e.target.startsWith(`admin:${person.id}`));
    expect(entries.map((e) => [e.action, e.target]).reverse()).toEqual([
      ["admin.created", `admin:${person.id}`],
      ["admin.updated", `admin:${person.id}`],
      ["admin_key.created", `admin:${person.id}/${key.id}`],
      ["admin_key.revoked", `admin:${person.id}/${key.id}`],
      ["admin.deleted", `admin:${person.id}`],
    ]);
    const updated = entries.find((e) => e.action === "admin.updated");
    expect(updated?.before).toMatchObject({ role: "operator" });
    expect(updated?.after).toMatchObject({ role: "viewer" });
    // The whole secret: base64url may hold "_", so splitting on "_" could take a fragment short
    // enough to be found by chance (a flaky failure seen in CI), as in callers.test.ts.
    const secret = key.key.slice(`admk_${key.id}_`.length);
    expect(secret).toHaveLength(43);
    const stored = rowsOf<{ text: string }>(
      await testDatabase().db.execute(
        sql`SELECT coalesce(string_agg(before::text || after::text, ''), '') AS text FROM audit_log`,
      ),
    )[0]?.text;
    expect(stored).not.toContain(secret);
  });

  it.runIf(kind === "postgres")(
    "60 keys made at once for one person: exactly 50 are kept",
    async () => {
      const person = await owner().admins.create({
        name: "R",
        email: "r@example.com",
        role: "viewer",
      });
      const results = await Promise.allSettled(
        Array.from({ length: 60 }, (_, i) =>
          owner().admins.createKey({ id: person.id, name: `k${i}` }),
        ),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(50);
      expect((await owner().admins.get({ id: person.id })).keys).toHaveLength(50);
    },
  );
});
