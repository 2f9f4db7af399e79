import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import { purgeOldAudit } from "@/server/audit";
import type { Caller } from "@/server/callers";
import { fixedClock } from "@/server/kit/clock";
import { callerFor, problemOf, TEST_ADMIN_KEY } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { sampleProposal } from "../helpers/proposal";

const START = "2026-11-29T10:00:00Z";

/**
 * Issue #49, item 2 (in part): each admin change is recorded in its own transaction, with who
 * (the admin key, or a signed-in admin wallet), before and after as the API shows them, never a
 * secret, the request id and the client; refused writes and non-admins add nothing. GET /audit
 * filters and pages them, newest first.
 */
describe.each(DATABASE_KINDS)("the audit log on %s", (kind) => {
  const clock = fixedClock(START);
  const testDatabase = useTestDatabase(kind, { clock, start: START });
  const admin = (requestId = "req-1") => callerFor(testDatabase().db, { clock, requestId });
  const count = async () =>
    rowsOf<{ n: number }>(
      await testDatabase().db.execute(sql`SELECT count(*)::int AS n FROM audit_log`),
    )[0]?.n;

  it("records agents, keys, counters, prices and webhooks with before and after, never a secret", async () => {
    await admin("req-create").agents.upsert({ aid: "audited", rate_limit_rpm: 60 });
    clock.advance(1000);
    await admin("req-update").agents.upsert({ aid: "audited", rate_limit_rpm: 120 });
    const created = await admin("req-key").agentKeys.create({ aid: "audited", name: "app" });
    await admin().agentKeys.revoke({ aid: "audited", id: created.id });
    await admin().agents.resetQuota({ aid: "audited", counters: ["message_daily"] } as never);
    await admin().prices.set({ model: "m-1", input_per_million: 1, output_per_million: 2 });
    await admin().prices.set({ model: "m-1", input_per_million: 3, output_per_million: 4 });
    // The same price again is no change, and adds no entry.
    await admin().prices.set({ model: "m-1", input_per_million: 3, output_per_million: 4 });
    await admin().prices.delete({ model: "m-1" });
    const hook = await admin().webhooks.create({
      url: "https://hooks.example.com/audit",
      events: ["agent.updated"],
    });
    const tested = await admin().webhooks.test({ id: hook.id });
    await admin().webhooks.retryDelivery({ id: hook.id, delivery_id: tested.id } as never);
    await admin().webhooks.update({ id: hook.id, enabled: false });
    await admin().webhooks.rotateSecret({ id: hook.id });
    await admin().webhooks.delete({ id: hook.id });
    await admin("req-delete").agents.delete({ aid: "audited" });

    const { entries } = await admin().audit.list({ limit: 50 });
    expect(entries.map((e) => [e.action, e.target]).reverse()).toEqual([
      ["agent.created", "agent:audited"],
      ["agent.updated", "agent:audited"],
      ["agent_key.created", `agent_key:audited/${created.id}`],
      ["agent_key.revoked", `agent_key:audited/${created.id}`],
      ["agent.counters_reset", "agent:audited"],
      ["price.set", "price:m-1"],
      ["price.set", "price:m-1"],
      ["price.deleted", "price:m-1"],
      ["webhook.created", `webhook:${hook.id}`],
      ["webhook.tested", `webhook:${hook.id}`],
      ["webhook.delivery_retried", `webhook:${hook.id}`],
      ["webhook.updated", `webhook:${hook.id}`],
      ["webhook.secret_rotated", `webhook:${hook.id}`],
      ["webhook.deleted", `webhook:${hook.id}`],
      ["agent.deleted", "agent:audited"],
    ]);
    expect(entries.every((e) => e.actor === "admin-key" && e.actor_via === "key")).toBe(true);
    expect(entries.every((e) => e.client === "test-client")).toBe(true);
    const updated = entries.find((e) => e.action === "agent.updated");
    expect(updated).toMatchObject({
      request_id: "req-update",
      at: "2026-11-29T10:00:01.000Z",
      before: { rate_limit_rpm: 60 },
      after: { rate_limit_rpm: 120 },
    });
    expect(entries.find((e) => e.action === "webhook.delivery_retried")?.after).toEqual({
      delivery_id: tested.id,
      event_type: "webhook.test",
    });
    expect(entries.find((e) => e.action === "agent.created")?.before).toBeNull();
    expect(entries.find((e) => e.action === "agent.deleted")?.after).toBeNull();
    expect(entries.find((e) => e.action === "webhook.updated")).toMatchObject({
      before: { enabled: true },
      after: { enabled: false },
    });
    expect(entries.find((e) => e.action === "price.set" && e.before !== null)).toMatchObject({
      before: { input_per_million: 1 },
      after: { input_per_million: 3 },
    });
    // Neither the key nor the webhook's secret is anywhere in the log.
    const all = JSON.stringify(
      rowsOf(await testDatabase().db.execute(sql`SELECT * FROM audit_log`)),
    );
    expect(all).not.toContain(created.key);
    expect(all).not.toContain(hook.secret);
    expect(all).not.toContain(TEST_ADMIN_KEY);
  });

  it("records an admin's deployments and status changes, and not a refused change", async () => {
    const made = await admin("req-deploy").deployments.create({
      user_address: "0x0000000000000000000000000000000000000002",
      proposal: sampleProposal,
    });
    await admin().deployments.changeStatus({
      id: String(made.id),
      status: "cancelled",
      deployment_details: { why: "duplicate" },
    } as never);
    // Final: refused, and so not recorded.
    await problemOf(
      admin().deployments.changeStatus({ id: String(made.id), status: "init" } as never),
    );
    const { entries } = await admin().audit.list({ target: `deployment:${made.id}` });
    expect(entries.map((e) => e.action)).toEqual([
      "deployment.status_changed",
      "deployment.created",
    ]);
    expect(entries[0]).toMatchObject({
      actor: "admin-key",
      before: { status: "init" },
      after: { status: "cancelled", deployment_details: { why: "duplicate" } },
    });
    expect(entries[1]).toMatchObject({
      request_id: "req-deploy",
      after: { id: made.id, Status: "init" },
    });
    expect(entries[1]?.after).not.toHaveProperty("proposal");
  });

  it("adds nothing for a refused write or a caller who is not an admin", async () => {
    await admin().agents.upsert({ aid: "quiet", chat_access: "public" } as never);
    const before = await count();
    expect(
      await problemOf(admin().agents.upsert({ aid: "quiet", rate_limit_rpm: -1 } as never)),
    ).toMatchObject({ status: 400 });
    expect(
      await problemOf(admin().agentKeys.revoke({ aid: "quiet", id: "ak_nope" } as never)),
    ).toMatchObject({ status: expect.any(Number) });
    expect(await problemOf(admin().webhooks.delete({ id: "wh_nope" } as never))).toMatchObject({
      status: expect.any(Number),
    });
    const anonymous: Caller = { kind: "anonymous", addressHash: "aa11" };
    const stranger = callerFor(testDatabase().db, { clock, admin: false, caller: anonymous });
    await stranger.chat.send({ aid: "quiet", q: "hello" });
    expect(await problemOf(stranger.agents.upsert({ aid: "quiet", name: "x" }))).toMatchObject({
      status: 401,
    });
    expect(await problemOf(stranger.audit.list({}))).toMatchObject({ status: 401 });
    expect(await count()).toBe(before);
  });

  it("filters by actor, target, action and time, in pages, and forgets what is past its days", async () => {
    // An hour after the other tests' changes (the clock starts each test at START).
    clock.advance(3_600_000);
    const t0 = clock.now().getTime();
    const iso = (ms: number) => new Date(ms).toISOString();
    for (const aid of ["a-1", "a-2", "a-3"]) {
      await admin().agents.upsert({ aid });
      clock.advance(60_000);
    }
    await admin().agents.upsert({ aid: "a-2", name: "Two" });
    const page = (input: Record<string, unknown>) => admin().audit.list(input as never);
    expect((await page({ target: "agent:a-2" })).entries.map((e) => e.action)).toEqual([
      "agent.updated",
      "agent.created",
    ]);
    expect((await page({ action: "agent.created", since: iso(t0) })).entries).toHaveLength(3);
    expect((await page({ actor: "wallet:0xnobody" })).entries).toEqual([]);
    const between = await page({ since: iso(t0 + 60_000), until: iso(t0 + 120_000) });
    expect(between.entries.map((e) => e.target)).toEqual(["agent:a-2"]);

    const first = await page({ limit: 2, since: iso(t0) });
    expect(first.entries.map((e) => e.target)).toEqual(["agent:a-2", "agent:a-3"]);
    const second = await page({ limit: 2, since: iso(t0), cursor: first.next_cursor });
    expect(second.entries.map((e) => e.target)).toEqual(["agent:a-2", "agent:a-1"]);
    expect(second.next_cursor).toBeNull();
    expect(await problemOf(page({ cursor: "forged" }))).toMatchObject({ status: 400 });

    // Kept 365 days: a year and 90 s on, only what came after t0 + 90 s is left (the other
    // tests' changes an hour before t0 with the rest).
    const { db } = testDatabase();
    await purgeOldAudit(db, new Date(t0 + 365 * 86_400_000 + 90_000), 365);
    expect((await page({})).entries.map((e) => e.target)).toEqual(["agent:a-2", "agent:a-3"]);
    await purgeOldAudit(db, new Date(t0 + 999 * 86_400_000), 0);
    expect((await page({})).entries).toHaveLength(2);
  });
});
