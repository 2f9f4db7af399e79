import { eq } from "drizzle-orm";
import type { LocalAccount } from "viem";
import { describe, expect, it } from "vitest";
import { deployments } from "@/db/schema";
import { authKeys } from "@/server/auth";
import type { DeploymentStatus } from "@/server/deployments";
import { createContextOf } from "@/server/frame/context";
import { fixedClock } from "@/server/kit/clock";
import { createProcedureCaller } from "@/server/routers";
import { callerFor, problemOf, TEST_ADMIN_KEY, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { sampleProposal } from "../helpers/proposal";
import { buildMessage, newAccount, signedBody } from "../helpers/siwe";

/**
 * The deployments the dashboard shows: pages both ways with counts, and the status changes it
 * offers a wallet, which must be exactly those the signed update then accepts.
 */
describe.each(DATABASE_KINDS)("deployments for the dashboard on %s", (kind) => {
  const clock = fixedClock("2026-11-21T12:00:00Z");
  const testDatabase = useTestDatabase(kind, { clock, start: "2026-11-21T12:00:00Z" });
  const admin = newAccount();
  const env = { PUBLIC_URL: "https://agents.example.com", ADMIN_ADDRESSES: admin.address };
  const config = testConfig(env);
  const caller = () => callerFor(testDatabase().db, { clock, config });
  const walletCaller = (wallet: LocalAccount, walletConfig = config) =>
    createProcedureCaller(
      createContextOf({
        db: testDatabase().db,
        clock,
        config: walletConfig,
        auth: authKeys(TEST_ADMIN_KEY),
        session: { role: "wallet", via: "wallet", address: wallet.address },
      }),
    );

  it("pages newest first both ways, with the count of all that match", async () => {
    const owner = newAccount();
    for (let i = 0; i < 23; i++) {
      await caller().deployments.create({
        request_id: `req-${i}`,
        user_address: i % 3 === 0 ? owner.address : newAccount().address,
        proposal: sampleProposal,
      });
    }
    const walk = async (list: typeof caller, query: { user_address?: string } = {}) => {
      const pages: string[][] = [];
      let page = await list().deployments.list({ ...query, limit: 5, include_total: true });
      expect(page.prev_cursor).toBeNull();
      const total = page.total;
      pages.push(page.deployments.map((d) => d.request_id));
      while (page.next_cursor) {
        page = await list().deployments.list({ ...query, limit: 5, cursor: page.next_cursor });
        pages.push(page.deployments.map((d) => d.request_id));
      }
      const back: string[][] = [page.deployments.map((d) => d.request_id)];
      while (page.prev_cursor) {
        page = await list().deployments.list({ ...query, limit: 5, cursor: page.prev_cursor });
        back.unshift(page.deployments.map((d) => d.request_id));
      }
      expect(back).toEqual(pages);
      return { ids: pages.flat(), total };
    };
    const all = await walk(caller);
    expect(all.total).toBe(23);
    expect(all.ids).toEqual(Array.from({ length: 23 }, (_, i) => `req-${22 - i}`));
    const owned = Array.from({ length: 8 }, (_, i) => `req-${21 - 3 * i}`);
    expect(await walk(caller, { user_address: owner.address })).toEqual({ ids: owned, total: 8 });
    // A wallet sees and counts its own only.
    expect(await walk(() => walletCaller(owner))).toEqual({ ids: owned, total: 8 });
    expect((await caller().deployments.list({ status: "failed", include_total: true })).total).toBe(
      0,
    );
  });

  it("embeds the last 10 changes in the record, and pages through every one, once, in order", async () => {
    const owner = newAccount();
    const { id } = await caller().deployments.create({
      user_address: owner.address,
      proposal: sampleProposal,
    });
    const cycle = ["pick_up", "deploying", "deployed"] as const;
    for (let i = 0; i < 45; i++) {
      clock.advance(1000);
      await caller().deployments.changeStatus({
        id,
        status: cycle[i % 3] as DeploymentStatus,
        deployment_details: { step: i },
      });
    }
    const steps = (history: { deployment_details: Record<string, unknown> | null }[]) =>
      history.map((h) => h.deployment_details?.step);
    const record = await caller().deployments.get({ id });
    expect(record.history_total).toBe(45);
    expect(steps(record.history)).toEqual(Array.from({ length: 10 }, (_, i) => 35 + i));

    const walk = async (list: typeof caller) => {
      const pages: unknown[][] = [];
      let page = await list().deployments.history({ id, limit: 7, include_total: true });
      expect(page.total).toBe(45);
      expect(page.prev_cursor).toBeNull();
      pages.push(steps(page.history));
      while (page.next_cursor) {
        page = await list().deployments.history({ id, limit: 7, cursor: page.next_cursor });
        pages.push(steps(page.history));
      }
      const back = [steps(page.history)];
      while (page.prev_cursor) {
        page = await list().deployments.history({ id, limit: 7, cursor: page.prev_cursor });
        back.unshift(steps(page.history));
      }
      expect(back).toEqual(pages);
      return pages;
    };
    const pages = await walk(caller);
    expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 7, 7, 7, 3]);
    expect(pages.flat()).toEqual(Array.from({ length: 45 }, (_, i) => 44 - i));
    // The owner's wallet reads it too; another wallet learns nothing of it.
    expect(await walk(() => walletCaller(owner))).toEqual(pages);
    expect(await problemOf(walletCaller(newAccount()).deployments.history({ id }))).toMatchObject({
      status: 404,
      code: "deployment_not_found",
    });
    expect(
      await problemOf(caller().deployments.history({ id, cursor: "not-a-cursor" })),
    ).toMatchObject({ status: 400, code: "invalid_cursor" });
  });

  /** A deployment in `status`, assigned to `worker` (or to none). */
  async function deployment(status: DeploymentStatus, worker?: LocalAccount, owner = newAccount()) {
    const made = await caller().deployments.create({
      user_address: owner.address,
      proposal: sampleProposal,
    });
    await testDatabase()
      .db.update(deployments)
      .set({ status, workerAddress: worker?.address ?? null })
      .where(eq(deployments.id, made.id));
    return made;
  }

  /** Signs `status` for the deployment as `signer`; the outcome as a status code. */
  async function sign(signer: LocalAccount, requestId: string, status: string) {
    const { nonce } = await caller().nonces.issue({ user_address: signer.address });
    const message = buildMessage(
      "viem",
      signer,
      { request_id: requestId, status },
      {
        domain: "agents.example.com",
        uri: "https://agents.example.com/v1/deployments/worker/status",
        chainId: 1,
        nonce,
        issuedAt: clock.now(),
      },
    );
    try {
      await caller().deployments.updateStatus(await signedBody(signer, message));
      return 200;
    } catch (error) {
      return (await problemOf(Promise.reject(error))).status;
    }
  }

  it("offers each signer exactly the changes the signed update accepts", async () => {
    const worker = newAccount();
    const other = newAccount();
    const cases: [DeploymentStatus, LocalAccount | undefined, LocalAccount, DeploymentStatus[]][] =
      [
        ["init", undefined, admin, ["pick_up", "failed", "cancelled"]],
        ["init", undefined, worker, ["pick_up"]],
        ["pick_up", worker, worker, ["deploying", "failed", "cancelled"]],
        ["pick_up", worker, other, []],
        ["deployed", worker, worker, ["generated_proof", "pick_up", "failed"]],
        ["deployed", undefined, admin, ["generated_proof", "pick_up", "failed"]],
        ["failed", worker, admin, []],
      ];
    for (const [status, assigned, signer, offered] of cases) {
      const made = await deployment(status, assigned);
      const options = await caller().deployments.changeOptions({
        id: made.id,
        signer: signer.address,
      });
      expect(options.statuses, `${status} for ${signer === admin ? "admin" : "wallet"}`).toEqual(
        offered,
      );
      expect(options.reason === null).toBe(offered.length > 0);
      // Every status of the machine: accepted when offered, refused when not.
      for (const next of ["pick_up", "deploying", "deployed", "failed", "cancelled"] as const) {
        if (next === status) continue;
        const fresh = await deployment(status, assigned);
        const outcome = await sign(signer, fresh.request_id, next);
        if (offered.includes(next)) expect(outcome, `${status} → ${next}`).toBe(200);
        else expect(outcome, `${status} → ${next}`).not.toBe(200);
      }
    }
    expect(
      (
        await caller().deployments.changeOptions({
          id: (await deployment("pick_up", worker)).id,
          signer: other.address,
        })
      ).reason,
    ).toMatch(/Another worker has picked this deployment up/);
    expect(
      (
        await caller().deployments.changeOptions({
          id: (await deployment("cancelled")).id,
          signer: admin.address,
        })
      ).reason,
    ).toBe("Cancelled is final: nothing can change it.");
  });

  it("offers nothing to a wallet outside WORKER_ADDRESSES, and says if Privy is needed", async () => {
    const outsider = newAccount();
    const restricted = testConfig({ ...env, WORKER_ADDRESSES: newAccount().address });
    const made = await deployment("init", undefined, outsider);
    const options = await walletCaller(outsider, restricted).deployments.changeOptions({
      id: made.id,
      signer: outsider.address,
    });
    expect(options).toMatchObject({ statuses: [], privy_token: "ignored" });
    expect(options.reason).toMatch(/may not change this deployment/);
    const privy = testConfig({
      ...env,
      PRIVY_APP_ID: "app",
      PRIVY_VERIFICATION_KEY:
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
      PRIVY_REQUIRED: "true",
    });
    expect(
      (
        await walletCaller(outsider, privy).deployments.changeOptions({
          id: made.id,
          signer: outsider.address,
        })
      ).privy_token,
    ).toBe("required");
  });

  it("keeps a wallet to its own deployments and to questions about itself", async () => {
    const owner = newAccount();
    const mine = await deployment("init", undefined, owner);
    const theirs = await deployment("init");
    expect(
      await problemOf(
        walletCaller(owner).deployments.changeOptions({ id: theirs.id, signer: owner.address }),
      ),
    ).toMatchObject({ status: 404, code: "deployment_not_found" });
    const asOther = await walletCaller(owner).deployments.changeOptions({
      id: mine.id,
      signer: admin.address,
    });
    expect(asOther.statuses).toEqual([]);
    expect(asOther.reason).toMatch(/You signed in as/);
    expect(
      await problemOf(
        callerFor(testDatabase().db, { clock, config, admin: false }).deployments.changeOptions({
          id: mine.id,
          signer: owner.address,
        }),
      ),
    ).toMatchObject({ status: 401 });
  });
});
