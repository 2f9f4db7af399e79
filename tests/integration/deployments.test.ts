import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import { fixedClock } from "@/server/kit/clock";
import { checkPrivyToken } from "@/server/siwe";
import { callerFor, problemOf, testConfig } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { buildMessage, newAccount, signedBody } from "../helpers/siwe";

const proposal = {
  init_cost: 1,
  maintenance_cost: 1,
  pay_period: 1,
  accept_currency: "USDC",
  cost: 1,
  fit: 1,
  throughput: 1,
  sla: 1,
  error_rate: 0,
  rank: 1,
};

describe.each(DATABASE_KINDS)("signed status updates on %s", (kind) => {
  const clock = fixedClock("2026-11-21T12:00:00Z");
  const testDatabase = useTestDatabase(kind, {
    clock,
    start: "2026-11-21T12:00:00Z",
    maxConnections: 30,
  });
  const config = testConfig({ PUBLIC_URL: "https://agents.example.com" });
  const caller = () => callerFor(testDatabase().db, { clock, config });
  const fields = (nonce: string) => ({
    domain: "agents.example.com",
    uri: "https://agents.example.com/v1/deployments/worker/status",
    chainId: 1,
    nonce,
    issuedAt: clock.now(),
  });

  async function signedPickUp(worker = newAccount()) {
    const { request_id } = await caller().deployments.create({
      user_address: newAccount().address,
      proposal,
    });
    const { nonce } = await caller().nonces.issue({ user_address: worker.address });
    const message = buildMessage("viem", worker, { request_id, status: "pick_up" }, fields(nonce));
    return signedBody(worker, message);
  }

  it("refuses a nonce that expired before the message came (10 minutes)", async () => {
    const body = await signedPickUp();
    clock.advance(10 * 60_000 + 1000);
    // SIWE_MAX_AGE_S is raised to an hour, so that only the nonce's 10 minutes are in the way.
    const failure = await problemOf(
      callerFor(testDatabase().db, {
        clock,
        config: testConfig({ PUBLIC_URL: "https://agents.example.com", SIWE_MAX_AGE_S: "3600" }),
      }).deployments.updateStatus(body),
    );
    expect(failure).toMatchObject({
      status: 401,
      code: "invalid_nonce",
      detail: expect.stringMatching(/expired/),
    });
  });

  it("accepts the same message within the nonce's life", async () => {
    const body = await signedPickUp();
    clock.advance(5 * 60_000);
    expect((await caller().deployments.updateStatus(body)).Status).toBe("pick_up");
  });

  it("lets one of 10 concurrent submissions of one signed message through", async () => {
    const body = await signedPickUp();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => caller().deployments.updateStatus(body)),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const failures = await Promise.all(
      results
        .filter((r) => r.status === "rejected")
        .map((r) => problemOf(Promise.reject((r as PromiseRejectedResult).reason))),
    );
    expect(new Set(failures.map((f) => f.code))).toEqual(new Set(["invalid_nonce"]));
  });

  describe("the bound on deployment_details (64 KiB as JSON, once merged)", () => {
    /** A value whose member `"key":"…"` takes about `bytes` bytes of JSON. */
    const blob = (bytes: number) => "x".repeat(bytes);
    const changesOf = async (id: number) =>
      rowsOf<{ n: number }>(
        await testDatabase().db.execute(
          sql`SELECT count(*)::int AS n FROM deployment_status_history WHERE deployment_id = ${id}`,
        ),
      )[0]?.n;

    it("refuses a creation over it, naming the field and the bound", async () => {
      const failure = await problemOf(
        caller().deployments.create({
          user_address: newAccount().address,
          proposal,
          deployment_details: { log: blob(70_000) },
        }),
      );
      expect(failure).toMatchObject({ status: 400, code: "validation_failed" });
      expect(failure.errors).toEqual([
        { field: "deployment_details", detail: "must be at most 65536 bytes (64 KiB) as JSON" },
      ]);
      expect((await caller().deployments.list({})).deployments).toEqual([]);
    });

    it("refuses the admin's change that would take the merged details over it, storing nothing", async () => {
      const { id } = await caller().deployments.create({
        user_address: newAccount().address,
        proposal,
      });
      for (const key of ["a", "b", "c"])
        await caller().deployments.changeStatus({
          id,
          status: "pick_up",
          deployment_details: { [key]: blob(20_000) },
        });
      const before = await caller().deployments.get({ id });
      const failure = await problemOf(
        caller().deployments.changeStatus({
          id,
          status: "deploying",
          deployment_details: { d: blob(20_000) },
        }),
      );
      expect(failure).toMatchObject({ status: 400, code: "validation_failed" });
      expect(failure.detail).toMatch(
        /^deployment_details would make the deployment's details 80\d{3} bytes as JSON, over their bound of 65536 bytes \(64 KiB\)/,
      );
      expect(failure.errors?.map((e) => e.field)).toEqual(["deployment_details"]);
      expect(await caller().deployments.get({ id })).toEqual(before);
      expect(await changesOf(id)).toBe(3);
      // Replacing a key rather than adding one stays within it, and a null frees its room.
      await caller().deployments.changeStatus({
        id,
        status: "deploying",
        deployment_details: { a: null, d: blob(20_000) },
      });
      expect(Object.keys((await caller().deployments.get({ id })).deployment_details)).toEqual([
        "a",
        "b",
        "c",
        "d",
      ]);
    });

    it("lets through only as many concurrent changes as fit: the merge is decided on the locked row", async () => {
      const { id } = await caller().deployments.create({
        user_address: newAccount().address,
        proposal,
      });
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          caller().deployments.changeStatus({
            id,
            status: "pick_up",
            deployment_details: { [`part-${i}`]: blob(20_000) },
          }),
        ),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(3);
      const stored = (await caller().deployments.get({ id })).deployment_details;
      expect(Object.keys(stored)).toHaveLength(3);
      expect(Buffer.byteLength(JSON.stringify(stored))).toBeLessThanOrEqual(64 * 1024);
      expect(await changesOf(id)).toBe(3);
    });

    it("refuses a signed change that would take them over it, spending its nonce", async () => {
      const worker = newAccount();
      const { id, request_id } = await caller().deployments.create({
        user_address: newAccount().address,
        proposal,
      });
      const signed = async (status: string, deployment_details: Record<string, unknown>) => {
        const { nonce } = await caller().nonces.issue({ user_address: worker.address });
        const message = buildMessage(
          "viem",
          worker,
          { request_id, status, deployment_details },
          fields(nonce),
        );
        return signedBody(worker, message);
      };
      // A signed statement holds 16 KiB at most: the fifth such change is one too many.
      for (const key of ["a", "b", "c", "d"])
        await caller().deployments.updateStatus(await signed("pick_up", { [key]: blob(15_000) }));
      const over = await signed("deploying", { e: blob(15_000) });
      const failure = await problemOf(caller().deployments.updateStatus(over));
      expect(failure).toMatchObject({ status: 400, code: "invalid_statement" });
      expect(failure.errors?.map((e) => e.field)).toEqual(["statement.deployment_details"]);
      expect(failure.detail).toMatch(/65536 bytes \(64 KiB\)/);
      expect((await caller().deployments.get({ id })).Status).toBe("pick_up");
      expect(await problemOf(caller().deployments.updateStatus(over))).toMatchObject({
        code: "invalid_nonce",
      });
    });
  });
});

const SIGNER = "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4";

describe("Privy tokens", () => {
  it("are required only when configured so", async () => {
    const required = { appId: "app", verificationKey: "unused", required: true };
    expect(await problemOf(checkPrivyToken(required, "", SIGNER))).toMatchObject({
      status: 401,
      code: "invalid_token",
    });
    await expect(
      checkPrivyToken({ ...required, required: false }, "", SIGNER),
    ).resolves.toBeUndefined();
    await expect(checkPrivyToken(undefined, "anything", SIGNER)).resolves.toBeUndefined();
  });
});
