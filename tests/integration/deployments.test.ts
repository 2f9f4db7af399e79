import { describe, expect, it } from "vitest";
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
