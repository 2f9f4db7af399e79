import { spawnSync } from "node:child_process";
import path from "node:path";
import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import type { LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThrowawayPostgres, DATABASE_KINDS } from "../helpers/database-kinds";
import { sampleProposal } from "../helpers/proposal";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";
import {
  buildMessage,
  type MessageFields,
  newAccount,
  type Statement,
  signedBody,
} from "../helpers/siwe";
import {
  startWebhookReceiver,
  until,
  verified,
  type WebhookReceiver,
} from "../helpers/webhook-receiver";

const adminHeaders = {
  authorization: `Bearer ${TEST_ADMIN_KEY}`,
  "content-type": "application/json",
};
const PRIVY_APP_ID = "test-privy-app";

const proposal = sampleProposal;

describe.each(DATABASE_KINDS)("worker deployments over HTTP on %s", (kind) => {
  let server: RunningServer;
  let dropDatabase: (() => Promise<void>) | undefined;
  let privyKey: CryptoKey;
  let hooks: WebhookReceiver;
  const adminWallet = newAccount();

  beforeAll(async () => {
    hooks = await startWebhookReceiver();
    const keys = await generateKeyPair("ES256");
    privyKey = keys.privateKey;
    const throwaway = kind === "postgres" ? await createThrowawayPostgres() : undefined;
    dropDatabase = throwaway?.drop;
    server = await startServer({
      ...(throwaway ? { DATABASE_URL: throwaway.url } : {}),
      ADMIN_ADDRESSES: adminWallet.address,
      PRIVY_APP_ID,
      PRIVY_VERIFICATION_KEY: await exportSPKI(keys.publicKey),
      WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${hooks.port}`,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await hooks?.close();
    await dropDatabase?.();
  });

  const domain = () => new URL(server.url.replace("127.0.0.1", "localhost")).host;
  const baseFields = (nonce: string): MessageFields => ({
    domain: domain(),
    uri: `http://${domain()}/v1/deployments/worker/status`,
    chainId: 8453,
    nonce,
    issuedAt: new Date(),
  });

  const nonceFor = async (account: LocalAccount): Promise<string> => {
    const response = await fetch(`${server.url}/v1/nonce?user_address=${account.address}`);
    expect(response.status).toBe(200);
    return (await response.json()).nonce;
  };

  const createDeployment = async (extra: Record<string, unknown> = {}) => {
    const response = await fetch(`${server.url}/v1/deployments`, {
      method: "POST",
      headers: adminHeaders,
      body: JSON.stringify({
        user_address: newAccount().address,
        proposal,
        proposal_id: 7,
        ...extra,
      }),
    });
    expect(response.status).toBe(201);
    return response.json();
  };

  const postStatus = (body: unknown) =>
    fetch(`${server.url}/v1/deployments/worker/status`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  /** Gets a nonce, builds and signs the message (with `tweak` applied), and posts it. */
  async function update(
    account: LocalAccount,
    statement: Statement,
    options: {
      via?: "viem" | "siwe";
      fields?: Partial<MessageFields>;
      tamper?: (body: Awaited<ReturnType<typeof signedBody>>) => unknown;
      privy_token?: string;
    } = {},
  ) {
    const nonce = await nonceFor(account);
    const message = buildMessage(options.via ?? "viem", account, statement, {
      ...baseFields(nonce),
      ...options.fields,
    });
    const body = await signedBody(account, message, { privy_token: options.privy_token });
    return postStatus(options.tamper ? options.tamper(body) : body);
  }

  async function expectRefusal(response: Response, status: number, code: string, detail?: RegExp) {
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const body = await response.json();
    expect({ status: response.status, code: body.code }).toEqual({ status, code });
    if (detail) expect(body.detail).toMatch(detail);
    return body;
  }

  describe("GET /v1/nonce", () => {
    it("issues a nonce for an address, and refuses a bad address with 400", async () => {
      const account = newAccount();
      const response = await fetch(`${server.url}/v1/nonce?user_address=${account.address}`);
      expect(await response.json()).toMatchObject({
        nonce: expect.stringMatching(/^[a-zA-Z0-9]{8,}$/),
        user_address: account.address,
      });
      await expectRefusal(
        await fetch(`${server.url}/v1/nonce?user_address=0x123`),
        400,
        "validation_failed",
      );
      await expectRefusal(await fetch(`${server.url}/v1/nonce`), 400, "validation_failed");
    });
  });

  describe("POST /v1/deployments (admin)", () => {
    it("creates a deployment in init, refuses bad input, duplicates and missing credentials", async () => {
      const created = await createDeployment({ request_id: "req-create-1" });
      expect(created).toMatchObject({
        request_id: "req-create-1",
        Status: "init",
        worker_address: null,
        proposal,
      });

      const duplicate = await fetch(`${server.url}/v1/deployments`, {
        method: "POST",
        headers: adminHeaders,
        body: JSON.stringify({
          request_id: "req-create-1",
          user_address: newAccount().address,
          proposal,
        }),
      });
      await expectRefusal(duplicate, 409, "conflict");

      const invalid = await fetch(`${server.url}/v1/deployments`, {
        method: "POST",
        headers: adminHeaders,
        body: JSON.stringify({ user_address: "nobody", proposal: { ...proposal, error_rate: 2 } }),
      });
      const body = await expectRefusal(invalid, 400, "validation_failed");
      expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        "proposal.error_rate",
        "user_address",
      ]);

      const anonymous = await fetch(`${server.url}/v1/deployments`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ user_address: newAccount().address, proposal }),
      });
      await expectRefusal(anonymous, 401, "unauthorized");
    });
  });

  describe("POST /v1/deployments/worker/status", () => {
    it("takes a deployment through its whole life cycle, answering the interface's record", async () => {
      const worker = newAccount();
      const deployment = await createDeployment({ worker_name: "pending" });
      const steps: [string, "viem" | "siwe", Record<string, unknown>][] = [
        ["pick_up", "siwe", { worker_name: "gpu-worker-1", worker_uuid: "8f14e45f-ceea-467f" }],
        ["deploying", "viem", { deployment_details: { image: "agent:1.2" } }],
        ["deployed", "siwe", { deployment_details: { endpoint: "https://node.example/agent" } }],
        ["generated_proof", "viem", { deployment_details: { proof: "0xabc" } }],
      ];
      let last: Record<string, unknown> = {};
      for (const [status, via, extra] of steps) {
        const response = await update(
          worker,
          { request_id: deployment.request_id, status, ...extra },
          { via },
        );
        expect(response.status, status).toBe(200);
        last = await response.json();
        expect(last.Status).toBe(status);
      }

      expect(Object.keys(last).sort()).toEqual(
        [
          "id",
          "request_id",
          "user_address",
          "worker_name",
          "worker_uuid",
          "proposal_hash",
          "proposal_id",
          "deployment_details",
          "proposal",
          "Status",
          "worker_address",
          "created_at",
          "updated_at",
        ].sort(),
      );
      expect(last).toMatchObject({
        id: deployment.id,
        request_id: deployment.request_id,
        user_address: deployment.user_address,
        worker_name: "gpu-worker-1",
        worker_uuid: "8f14e45f-ceea-467f",
        proposal_hash: null,
        proposal_id: 7,
        deployment_details: {
          image: "agent:1.2",
          endpoint: "https://node.example/agent",
          proof: "0xabc",
        },
        proposal,
        Status: "generated_proof",
        worker_address: worker.address,
      });
      expect(Number.isInteger(last.id)).toBe(true);

      const detail = await fetch(`${server.url}/v1/deployments/${deployment.id}`, {
        headers: adminHeaders,
      }).then((r) => r.json());
      expect(
        detail.history.map((h: { from_status: string; to_status: string }) => [
          h.from_status,
          h.to_status,
        ]),
      ).toEqual([
        ["init", "pick_up"],
        ["pick_up", "deploying"],
        ["deploying", "deployed"],
        ["deployed", "generated_proof"],
      ]);
      expect(
        new Set(detail.history.map((h: { signer_address: string }) => h.signer_address)),
      ).toEqual(new Set([worker.address]));
      expect(new Set(detail.history.map((h: { nonce: string }) => h.nonce)).size).toBe(4);

      // Redeploy, then the same status again updates the details.
      expect(
        (await update(worker, { request_id: deployment.request_id, status: "pick_up" })).status,
      ).toBe(200);
      const again = await update(worker, {
        request_id: deployment.request_id,
        status: "pick_up",
        deployment_details: { attempt: 2 },
      });
      expect(await again.json()).toMatchObject({
        Status: "pick_up",
        deployment_details: { attempt: 2 },
      });
    });

    it("lets exactly one of 20 racing workers pick a deployment up", async () => {
      const deployment = await createDeployment();
      const workers = Array.from({ length: 20 }, () => newAccount());
      const bodies = await Promise.all(
        workers.map(async (worker) => {
          const message = buildMessage(
            "viem",
            worker,
            { request_id: deployment.request_id, status: "pick_up" },
            baseFields(await nonceFor(worker)),
          );
          return signedBody(worker, message);
        }),
      );
      const responses = await Promise.all(bodies.map((body) => postStatus(body)));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
      const loser = responses[statuses.indexOf(409)] as Response;
      await expectRefusal(
        loser,
        409,
        "already_claimed",
        /already been picked up by another worker/,
      );

      const winner = workers[statuses.indexOf(200)] as LocalAccount;
      const detail = await fetch(`${server.url}/v1/deployments/${deployment.id}`, {
        headers: adminHeaders,
      }).then((r) => r.json());
      expect(detail.worker_address).toBe(winner.address);
      expect(
        detail.history.filter((h: { to_status: string }) => h.to_status === "pick_up"),
      ).toHaveLength(1);
    });

    describe("refuses, each with its own status and sentence", () => {
      let requestId: string;
      const worker = newAccount();
      beforeAll(async () => {
        requestId = (await createDeployment()).request_id;
        expect((await update(worker, { request_id: requestId, status: "pick_up" })).status).toBe(
          200,
        );
      });
      const next = (status = "deploying") => ({ request_id: requestId, status });

      it("a replayed message (its nonce is spent)", async () => {
        const message = buildMessage(
          "viem",
          worker,
          next("pick_up"),
          baseFields(await nonceFor(worker)),
        );
        const body = await signedBody(worker, message);
        expect((await postStatus(body)).status).toBe(200);
        await expectRefusal(await postStatus(body), 401, "invalid_nonce", /already been used/);
      });

      it("a nonce this service never issued, or issued to another address", async () => {
        const message = buildMessage("viem", worker, next(), baseFields("madeUpNonce12345"));
        await expectRefusal(
          await postStatus(await signedBody(worker, message)),
          401,
          "invalid_nonce",
          /not issued/,
        );
        const othersNonce = await nonceFor(newAccount());
        const stolen = buildMessage("viem", worker, next(), baseFields(othersNonce));
        await expectRefusal(
          await postStatus(await signedBody(worker, stolen)),
          401,
          "invalid_nonce",
          /another address/,
        );
      });

      it("a wrong domain, a URI outside the service, a chain not accepted", async () => {
        await expectRefusal(
          await update(worker, next(), { fields: { domain: "evil.example" } }),
          401,
          "siwe_rejected",
          /is for 'evil.example'/,
        );
        await expectRefusal(
          await update(worker, next(), { fields: { uri: `http://${domain()}.evil.example/x` } }),
          401,
          "siwe_rejected",
          /not under this service's URL/,
        );
        await expectRefusal(
          await update(worker, next(), { fields: { chainId: 999 } }),
          401,
          "siwe_rejected",
          /Chain 999/,
        );
      });

      it("an expired message, one not valid yet, one issued too long ago or in the future", async () => {
        const now = Date.now();
        await expectRefusal(
          await update(worker, next(), { fields: { expirationTime: new Date(now - 1000) } }),
          401,
          "siwe_rejected",
          /expired/,
        );
        await expectRefusal(
          await update(worker, next(), { fields: { notBefore: new Date(now + 3_600_000) } }),
          401,
          "siwe_rejected",
          /not valid yet/,
        );
        await expectRefusal(
          await update(worker, next(), { fields: { issuedAt: new Date(now - 3_600_000) } }),
          401,
          "siwe_rejected",
          /more than 600 seconds ago/,
        );
        await expectRefusal(
          await update(worker, next(), { fields: { issuedAt: new Date(now + 3_600_000) } }),
          401,
          "siwe_rejected",
          /in the future/,
        );
      });

      it("a message for another address than user_address", async () => {
        const other = newAccount();
        await expectRefusal(
          await update(worker, next(), {
            tamper: (body) => ({ ...body, user_address: other.address }),
          }),
          401,
          "siwe_rejected",
          /different address/,
        );
      });

      it("a tampered signature or a tampered statement", async () => {
        await expectRefusal(
          await update(worker, next(), {
            tamper: (body) => ({
              ...body,
              signature: `${body.signature.slice(0, -4)}${body.signature.slice(-4) === "1b1b" ? "1c1c" : "1b1b"}`,
            }),
          }),
          401,
          "invalid_signature",
        );
        await expectRefusal(
          await update(worker, next(), {
            tamper: (body) => ({
              ...body,
              siwe_msg: body.siwe_msg.replace('"deploying"', '"failed"'),
            }),
          }),
          401,
          "invalid_signature",
        );
      });

      it("another worker on a claimed deployment: 404 as for an unknown one, or 409 when it tries to pick it up", async () => {
        const intruder = newAccount();
        await expectRefusal(
          await update(intruder, next()),
          404,
          "deployment_not_found",
          /that you may change/,
        );
        await expectRefusal(await update(intruder, next("pick_up")), 409, "already_claimed");
      });

      it("a transition the status machine does not allow", async () => {
        await expectRefusal(
          await update(worker, next("generated_proof")),
          409,
          "transition_not_allowed",
          /cannot move to generated_proof/,
        );
      });

      it("an unknown request_id", async () => {
        await expectRefusal(
          await update(worker, { request_id: "no-such-request", status: "pick_up" }),
          404,
          "deployment_not_found",
        );
      });

      it("malformed JSON, a missing field, a statement that is not a status update", async () => {
        await expectRefusal(await postStatus('{"user_address": '), 400, "malformed_json");
        const message = buildMessage("viem", worker, next(), baseFields(await nonceFor(worker)));
        const { siwe_msg: _, ...withoutMessage } = await signedBody(worker, message);
        const missing = await expectRefusal(
          await postStatus(withoutMessage),
          400,
          "validation_failed",
        );
        expect(missing.errors).toEqual([{ field: "siwe_msg", detail: expect.any(String) }]);
        await expectRefusal(
          await postStatus({ ...withoutMessage, siwe_msg: "hello" }),
          400,
          "invalid_siwe_message",
        );
        await expectRefusal(
          await update(worker, { request_id: requestId, status: "exploded" }),
          400,
          "invalid_statement",
          /status must be one of/,
        );
      });

      it("an invalid, expired or wrong-audience Privy token (checked since Privy is configured)", async () => {
        const token = (claims: { audience?: string; expiresIn?: string | number }) =>
          new SignJWT({ sid: "session" })
            .setProtectedHeader({ alg: "ES256" })
            .setIssuer("privy.io")
            .setAudience(claims.audience ?? PRIVY_APP_ID)
            .setSubject("did:privy:worker")
            .setIssuedAt()
            .setExpirationTime(claims.expiresIn ?? "1h")
            .sign(privyKey);
        await expectRefusal(
          await update(worker, next(), { privy_token: "not.a.jwt" }),
          401,
          "invalid_token",
          /not valid/,
        );
        await expectRefusal(
          await update(worker, next(), {
            privy_token: await token({ expiresIn: Math.floor(Date.now() / 1000) - 60 }),
          }),
          401,
          "invalid_token",
          /expired/,
        );
        await expectRefusal(
          await update(worker, next(), { privy_token: await token({ audience: "another-app" }) }),
          401,
          "invalid_token",
          /not for this app/,
        );
        const accepted = await update(worker, next(), { privy_token: await token({}) });
        expect(accepted.status).toBe(200);
      });
    });

    it("works with the README's worked example script", async () => {
      const deployment = await createDeployment();
      const key = generatePrivateKey();
      const run = spawnSync(
        process.execPath,
        [
          path.resolve("node_modules/tsx/dist/cli.mjs"),
          "scripts/sign-status-update.ts",
          deployment.request_id,
          "pick_up",
          '{"gpu":"A100"}',
        ],
        {
          env: {
            PATH: process.env.PATH,
            NODE_ENV: "production",
            WORKER_PRIVATE_KEY: key,
            SERVICE_URL: server.url.replace("127.0.0.1", "localhost"),
          },
          encoding: "utf8",
        },
      );
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^200 /);
      expect(JSON.parse(run.stdout.slice(4))).toMatchObject({
        Status: "pick_up",
        worker_address: privateKeyToAccount(key).address,
        deployment_details: { gpu: "A100" },
      });
    });

    it("lets an admin wallet change any deployment", async () => {
      const deployment = await createDeployment();
      const response = await update(adminWallet, {
        request_id: deployment.request_id,
        status: "cancelled",
      });
      expect(await response.json()).toMatchObject({ Status: "cancelled", worker_address: null });
    });

    it("lets the admin key change a status with no signature, recorded as the admin's", async () => {
      const deployment = await createDeployment();
      const change = (id: number | string, body: unknown, headers = adminHeaders) =>
        fetch(`${server.url}/v1/deployments/${id}/status`, {
          method: "POST",
          headers,
          body: JSON.stringify(body),
        });
      const moved = await change(deployment.id, {
        status: "pick_up",
        deployment_details: { note: "by hand" },
      });
      expect(moved.status).toBe(200);
      expect(await moved.json()).toMatchObject({
        Status: "pick_up",
        worker_address: null,
        deployment_details: { note: "by hand" },
      });
      const cancelled = await change(deployment.id, { status: "cancelled" });
      expect(await cancelled.json()).toMatchObject({ Status: "cancelled" });
      const record = await (
        await fetch(`${server.url}/v1/deployments/${deployment.id}`, { headers: adminHeaders })
      ).json();
      expect(
        record.history.map((h: Record<string, unknown>) => [
          h.to_status,
          h.signer_address,
          h.nonce,
        ]),
      ).toEqual([
        ["pick_up", "admin", ""],
        ["cancelled", "admin", ""],
      ]);
      // Cancelled is final, for the admin too; unknown ids, bad statuses and no key are refused.
      const final = await change(deployment.id, { status: "deploying" });
      expect(final.status).toBe(409);
      expect(await final.json()).toMatchObject({ code: "transition_not_allowed" });
      expect((await change(999_999, { status: "cancelled" })).status).toBe(404);
      expect((await change(deployment.id, { status: "done" })).status).toBe(400);
      const anonymous = await change(deployment.id, { status: "failed" }, {
        "content-type": "application/json",
      } as typeof adminHeaders);
      expect(anonymous.status).toBe(401);
    });
  });

  describe("bounds on what workers can grow", () => {
    const get = (path: string) =>
      fetch(`${server.url}${path}`, { headers: adminHeaders }).then(async (r) => ({
        status: r.status,
        text: await r.text(),
      }));

    it("keeps the record and every event bounded through 42 signed updates, and pages the history", async () => {
      const made = await fetch(`${server.url}/webhooks`, {
        method: "POST",
        headers: adminHeaders,
        body: JSON.stringify({
          url: `${hooks.url}/bounded`,
          events: ["deployment.status_changed"],
        }),
      });
      expect(made.status).toBe(201);
      const endpoint = await made.json();
      const worker = newAccount();
      const deployment = await createDeployment();
      // Each update carries 15 kB under one key: the details stay small, the history grows.
      const cycle = ["pick_up", "deploying", "deployed"];
      const updates = 42;
      for (let i = 0; i < updates; i++) {
        const response = await update(worker, {
          request_id: deployment.request_id,
          status: cycle[i % 3] as string,
          deployment_details: { log: `${i}:${"x".repeat(15_000)}`, step: i },
        });
        expect(response.status, `update ${i}`).toBe(200);
      }

      const record = await get(`/v1/deployments/${deployment.id}`);
      const parsed = JSON.parse(record.text);
      expect(parsed.history_total).toBe(updates);
      expect(
        parsed.history.map(
          (h: { deployment_details: { step: number } }) => h.deployment_details.step,
        ),
      ).toEqual(Array.from({ length: 10 }, (_, i) => updates - 10 + i));
      expect(Buffer.byteLength(record.text)).toBeLessThan(12 * 16_000);

      // Every entry once, newest first, a page at a time; the pages' cursors lead nowhere else.
      const steps: number[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `limit=8${cursor ? `&cursor=${cursor}` : ""}`;
        const page = await get(`/v1/deployments/${deployment.id}/history?${query}`);
        expect(page.status, page.text).toBe(200);
        const body = JSON.parse(page.text);
        steps.push(
          ...body.history.map(
            (h: { deployment_details: { step: number } }) => h.deployment_details.step,
          ),
        );
        cursor = body.next_cursor;
      } while (cursor);
      expect(steps).toEqual(Array.from({ length: updates }, (_, i) => updates - 1 - i));
      expect((await get(`/v1/deployments/${deployment.id}/history?limit=0`)).status).toBe(400);
      expect((await get(`/v1/deployments/${deployment.id}/history?cursor=nope`)).status).toBe(400);
      expect((await get("/v1/deployments/999999/history")).status).toBe(404);

      // Each status change is one event, with the last 5 changes: none grows with the history.
      expect(await until(() => hooks.to("/bounded").length === updates, 30_000)).toBe(true);
      const bodies = hooks.to("/bounded").map((received) => {
        const event = verified(endpoint.secret, received) as {
          data: { history: unknown[]; history_total: number; to_status: string };
        };
        return { bytes: Buffer.byteLength(received.body), event };
      });
      for (const { bytes, event } of bodies) {
        expect(event.data.history.length).toBeLessThanOrEqual(5);
        expect(bytes).toBeLessThan(7 * 16_000);
      }
      const total = bodies.reduce((sum, { bytes }) => sum + bytes, 0);
      expect(total).toBeLessThan(updates * 7 * 16_000);
      // The outbox, read through the API, holds the same bounded bodies.
      const deliveries = JSON.parse(
        (await get(`/webhooks/${endpoint.id}/deliveries?limit=100`)).text,
      ).deliveries as { payload: { data: { history: unknown[] } } }[];
      expect(deliveries).toHaveLength(updates);
      for (const delivery of deliveries)
        expect(delivery.payload.data.history.length).toBeLessThanOrEqual(5);
    });

    it("refuses a signed update that would take the details past 64 KiB, changing nothing", async () => {
      const worker = newAccount();
      const deployment = await createDeployment();
      for (const key of ["a", "b", "c", "d"]) {
        const response = await update(worker, {
          request_id: deployment.request_id,
          status: "pick_up",
          deployment_details: { [key]: "x".repeat(15_000) },
        });
        expect(response.status).toBe(200);
      }
      const before = await get(`/v1/deployments/${deployment.id}`);
      const refused = await expectRefusal(
        await update(worker, {
          request_id: deployment.request_id,
          status: "deploying",
          deployment_details: { e: "x".repeat(15_000) },
        }),
        400,
        "invalid_statement",
        /^statement\.deployment_details would make the deployment's details \d+ bytes as JSON, over their bound of 65536 bytes \(64 KiB\)/,
      );
      expect(refused.errors).toEqual([
        { field: "statement.deployment_details", detail: expect.stringMatching(/65536 bytes/) },
      ]);
      expect(await get(`/v1/deployments/${deployment.id}`)).toEqual(before);
    });
  });

  describe("GET /v1/deployments (admin)", () => {
    it("filters by owner, status and proposal, newest first", async () => {
      const owner = newAccount();
      const first = await createDeployment({ user_address: owner.address, proposal_id: 4242 });
      const second = await createDeployment({
        user_address: owner.address.toLowerCase(),
        proposal_id: 4242,
      });
      const list = async (query: string) =>
        (
          await fetch(`${server.url}/v1/deployments?${query}`, { headers: adminHeaders }).then(
            (r) => r.json(),
          )
        ).deployments.map((d: { id: number }) => d.id);
      expect(await list(`user_address=${owner.address}`)).toEqual([second.id, first.id]);
      expect(await list("proposal_id=4242&status=init&limit=1")).toEqual([second.id]);
      await expectRefusal(
        await fetch(`${server.url}/v1/deployments?status=lost`, { headers: adminHeaders }),
        400,
        "validation_failed",
      );
      await expectRefusal(await fetch(`${server.url}/v1/deployments`), 401, "unauthorized");
      await expectRefusal(
        await fetch(`${server.url}/v1/deployments/999999`, { headers: adminHeaders }),
        404,
        "deployment_not_found",
      );
    });
  });

  describe("wallet sign-in (the dashboard's session)", () => {
    const signIn = async (account: LocalAccount, tamper?: (message: string) => string) => {
      const nonce = await nonceFor(account);
      const message = createSiweMessage({
        ...baseFields(nonce),
        address: account.address,
        version: "1",
        statement: "Sign in to the Agent Service dashboard.",
        uri: `http://${domain()}/login`,
      });
      const signature = await account.signMessage({ message });
      return fetch(`${server.url}/api/trpc/auth.signIn`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: tamper ? tamper(message) : message, signature }),
      });
    };
    const sessionCookieOf = (response: Response) =>
      (response.headers.get("set-cookie") ?? "").split(";")[0] as string;

    it("sets an httpOnly, SameSite session cookie for a signed message, once per nonce", async () => {
      const wallet = newAccount();
      const response = await signIn(wallet);
      expect(response.status).toBe(200);
      expect((await response.json()).result.data).toEqual({
        role: "wallet",
        via: "wallet",
        address: wallet.address,
      });
      const setCookie = response.headers.get("set-cookie") ?? "";
      expect(setCookie).toMatch(
        /^agent_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200$/,
      );

      const forged = await signIn(wallet, (message) => message.replace("dashboard", "dashboards"));
      expect(forged.status).toBe(401);
      expect(forged.headers.get("set-cookie")).toBeNull();
    });

    it("shows a wallet its own deployments only on the dashboard's paths, and no admin pages", async () => {
      const wallet = newAccount();
      const own = await createDeployment({ user_address: wallet.address });
      const other = await createDeployment();
      const cookie = sessionCookieOf(await signIn(wallet));
      const query = (procedure: string, input: unknown) =>
        fetch(
          `${server.url}/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`,
          {
            headers: { cookie },
          },
        );
      const result = async (response: Response) => (await response.json()).result.data;

      const listed = await result(await query("deployments.list", {}));
      expect(listed.deployments.map((d: { id: number }) => d.id)).toEqual([own.id]);
      expect((await query("deployments.get", { id: String(own.id) })).status).toBe(200);
      expect((await query("deployments.get", { id: String(other.id) })).status).toBe(404);
      expect((await query("deployments.list", { user_address: other.user_address })).status).toBe(
        403,
      );
      expect((await query("agents.list", {})).status).toBe(403);
      // REST takes the admin key only: the cookie is not a credential there.
      await expectRefusal(
        await fetch(`${server.url}/v1/deployments`, { headers: { cookie } }),
        401,
        "unauthorized",
      );
      const forged = await fetch(`${server.url}/api/trpc/deployments.list?input=%7B%7D`, {
        headers: { cookie: "agent_session=forged-token-forged-token-forged-token-forged-tok" },
      });
      expect(forged.status).toBe(401);
    });

    it("makes an ADMIN_ADDRESSES wallet, or the admin key, an admin", async () => {
      const asAdmin = (cookie: string) =>
        fetch(`${server.url}/api/trpc/agents.list?input=%7B%7D`, { headers: { cookie } });
      const walletCookie = sessionCookieOf(await signIn(adminWallet));
      expect((await asAdmin(walletCookie)).status).toBe(200);

      const withKey = await fetch(`${server.url}/api/trpc/auth.signInWithKey`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key: TEST_ADMIN_KEY }),
      });
      expect((await withKey.json()).result.data).toEqual({ role: "owner", via: "api_key" });
      expect((await asAdmin(sessionCookieOf(withKey))).status).toBe(200);

      const wrongKey = await fetch(`${server.url}/api/trpc/auth.signInWithKey`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key: "guess" }),
      });
      expect(wrongKey.status).toBe(401);

      const signOut = await fetch(`${server.url}/api/trpc/auth.signOut`, {
        method: "POST",
        headers: { cookie: walletCookie, "content-type": "application/json", origin: server.url },
      });
      expect(signOut.headers.get("set-cookie")).toMatch(/^agent_session=; .*Max-Age=0/);
      expect((await asAdmin(walletCookie)).status).toBe(401);
    });

    it("gives a wallet in the admins list its role, and a change of it acts at once", async () => {
      const wallet = newAccount();
      const added = await fetch(`${server.url}/admins`, {
        method: "POST",
        headers: { ...adminHeaders, "content-type": "application/json" },
        body: JSON.stringify({ name: "Watcher", wallet: wallet.address, role: "viewer" }),
      });
      expect(added.status).toBe(201);
      const { id } = await added.json();
      const signedIn = await signIn(wallet);
      expect((await signedIn.json()).result.data).toEqual({
        role: "viewer",
        via: "wallet",
        address: wallet.address,
        admin: id,
      });
      const cookie = sessionCookieOf(signedIn);
      const call = (procedure: string, body?: unknown) =>
        fetch(`${server.url}/api/trpc/${procedure}${body === undefined ? "?input=%7B%7D" : ""}`, {
          method: body === undefined ? "GET" : "POST",
          headers: { cookie, "content-type": "application/json", origin: server.url },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      expect((await call("agents.list")).status).toBe(200);
      expect((await call("agents.upsert", { aid: "wallet-made" })).status).toBe(403);
      await fetch(`${server.url}/admins/${id}`, {
        method: "PATCH",
        headers: { ...adminHeaders, "content-type": "application/json" },
        body: JSON.stringify({ role: "operator" }),
      });
      expect((await call("agents.upsert", { aid: "wallet-made" })).status).toBe(200);
      await fetch(`${server.url}/admins/${id}`, { method: "DELETE", headers: adminHeaders });
      // Removed from the list, the wallet is signed in still, as a wallet and nothing more.
      expect((await call("agents.list")).status).toBe(403);
    });
  });
});
