import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import type { LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleProposal } from "../helpers/proposal";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";
import { buildMessage, newAccount, signedBody } from "../helpers/siwe";

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const PRIVY_APP_ID = "privy-binding-app";
// secp256k1's order: s' = n - s is the malleated twin of a signature.
const ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * Signed messages, attacked as issue 13 found them: one purpose per message, one use per
 * message whatever the refusal, strict statements and signatures, Privy tokens bound to the
 * signer, worker allow-lists, and refusals that do not tell outsiders which request_ids exist.
 */
describe("signed messages over HTTP", () => {
  let server: RunningServer;
  let privyKey: CryptoKey;
  // A fixed key, so that its address's letters are known to be of both cases (see the checksum case).
  const allowedWorker = privateKeyToAccount(`0x${"0".repeat(63)}1`);
  let log = "";

  beforeAll(async () => {
    const keys = await generateKeyPair("ES256");
    privyKey = keys.privateKey;
    server = await startServer({
      WORKER_ADDRESSES: allowedWorker.address,
      PRIVY_APP_ID,
      PRIVY_VERIFICATION_KEY: await exportSPKI(keys.publicKey),
      PRIVY_REQUIRED: "true",
    });
  });
  afterAll(() => server?.stop());

  const domain = () => new URL(server.url).host.replace("127.0.0.1", "localhost");
  const nonceFor = async (account: LocalAccount) =>
    (await (await fetch(`${server.url}/v1/nonce?user_address=${account.address}`)).json())
      .nonce as string;
  const fields = (nonce: string, uriPath = "/v1/deployments/worker/status") => ({
    domain: domain(),
    uri: `http://${domain()}${uriPath}`,
    chainId: 8453,
    nonce,
    issuedAt: new Date(),
  });
  const identityToken = (wallets: string[]) =>
    new SignJWT({
      linked_accounts: JSON.stringify(wallets.map((address) => ({ type: "wallet", address }))),
    })
      .setProtectedHeader({ alg: "ES256" })
      .setIssuer("privy.io")
      .setAudience(PRIVY_APP_ID)
      .setSubject("did:privy:someone")
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(privyKey);
  const postStatus = (body: unknown) =>
    fetch(`${server.url}/v1/deployments/worker/status`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const signIn = (message: string, signature: string) =>
    fetch(`${server.url}/api/trpc/auth.signIn`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message, signature }),
    });
  const createDeployment = async (extra: Record<string, unknown> = {}) => {
    const response = await fetch(`${server.url}/v1/deployments`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({
        user_address: newAccount().address,
        proposal: sampleProposal,
        ...extra,
      }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { request_id: string };
  };
  /** A signed pick_up of `requestId` by `worker`, with an identity token for it. */
  const pickUp = async (worker: LocalAccount, requestId: string, statement?: string) => {
    const nonce = await nonceFor(worker);
    const message = statement
      ? createSiweMessage({ ...fields(nonce), address: worker.address, version: "1", statement })
      : buildMessage("viem", worker, { request_id: requestId, status: "pick_up" }, fields(nonce));
    return signedBody(worker, message, { privy_token: await identityToken([worker.address]) });
  };
  const problem = async (response: Response) => {
    const body = await response.json();
    // tRPC wraps the problem: { error: { data: { problem } } }.
    return { status: response.status, ...(body.error?.data?.problem ?? body) };
  };

  it("refuses a status message at sign-in, and spends its nonce so it cannot be used after", async () => {
    const { request_id } = await createDeployment();
    const body = await pickUp(allowedWorker, request_id);
    const asSignIn = await problem(await signIn(body.siwe_msg, body.signature));
    expect(asSignIn).toMatchObject({ status: 401, code: "wrong_message_purpose" });
    expect(await problem(await postStatus(body))).toMatchObject({
      status: 401,
      code: "invalid_nonce",
    });
  });

  it("refuses a sign-in message as a status update, and spends its nonce", async () => {
    const nonce = await nonceFor(allowedWorker);
    const message = createSiweMessage({
      ...fields(nonce, "/login"),
      address: allowedWorker.address,
      version: "1",
      statement: "Sign in to the Agent Service dashboard.",
    });
    const body = await signedBody(allowedWorker, message, {
      privy_token: await identityToken([allowedWorker.address]),
    });
    expect(await problem(await postStatus(body))).toMatchObject({
      status: 401,
      code: "wrong_message_purpose",
    });
    const signature = body.signature;
    expect(await problem(await signIn(message, signature))).toMatchObject({ status: 401 });
  });

  it("spends the nonce of a message refused for its statement, and bounds the statement before parsing", async () => {
    const deep = `{"request_id":"x","status":"pick_up","deployment_details":{"a":${"[".repeat(5000)}${"]".repeat(5000)}}}`;
    const duplicate = '{"request_id":"x","status":"failed","status":"pick_up"}';
    for (const [statement, detail] of [
      [deep, /deeper than 32 levels/],
      [duplicate, /the key 'status' twice/],
      ["not json at all", /not JSON/],
    ] as const) {
      const body = await pickUp(allowedWorker, "x", statement);
      const refused = await problem(await postStatus(body));
      expect(refused).toMatchObject({ status: 400, code: "invalid_statement" });
      expect(refused.detail).toMatch(detail);
      expect(await problem(await postStatus(body))).toMatchObject({
        status: 401,
        code: "invalid_nonce",
      });
    }
    log = server.output();
    expect(log).not.toMatch(/RangeError|Maximum call stack|Unexpected error/);
  });

  it("refuses a Privy token that is not bound to the signing wallet, spending the nonce", async () => {
    const { request_id } = await createDeployment();
    const nonce = await nonceFor(allowedWorker);
    const message = buildMessage(
      "viem",
      allowedWorker,
      { request_id, status: "pick_up" },
      fields(nonce),
    );
    const someoneElse = await signedBody(allowedWorker, message, {
      privy_token: await identityToken([newAccount().address]),
    });
    const refused = await problem(await postStatus(someoneElse));
    expect(refused).toMatchObject({ status: 401, code: "invalid_token" });
    expect(refused.detail).toMatch(/do not include the signing wallet/);
    // An access token names no wallets: not enough with PRIVY_REQUIRED.
    const accessToken = await new SignJWT({ sid: "s" })
      .setProtectedHeader({ alg: "ES256" })
      .setIssuer("privy.io")
      .setAudience(PRIVY_APP_ID)
      .setSubject("did:privy:someone")
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(privyKey);
    const again = await pickUp(allowedWorker, request_id);
    const withAccess = await problem(await postStatus({ ...again, privy_token: accessToken }));
    expect(withAccess).toMatchObject({ status: 401, code: "invalid_token" });
    expect(withAccess.detail).toMatch(/identity token/);
    const bound = await pickUp(allowedWorker, request_id);
    expect((await postStatus(bound)).status).toBe(200);
  });

  it("refuses malleated signatures, non-canonical chain ids and addresses with a wrong checksum", async () => {
    const { request_id } = await createDeployment();
    const statement = { request_id, status: "pick_up" };
    const body = await pickUp(allowedWorker, request_id);
    const r = body.signature.slice(2, 66);
    const s = BigInt(`0x${body.signature.slice(66, 130)}`);
    const v = Number.parseInt(body.signature.slice(130, 132), 16);
    const malleated = `0x${r}${(ORDER - s).toString(16).padStart(64, "0")}${(v === 27 ? 28 : 27).toString(16)}`;
    expect(await problem(await postStatus({ ...body, signature: malleated }))).toMatchObject({
      status: 401,
      code: "invalid_signature",
    });

    const nonce = await nonceFor(allowedWorker);
    const zeroChain = buildMessage("viem", allowedWorker, statement, fields(nonce)).replace(
      "Chain ID: 8453",
      "Chain ID: 08453",
    );
    const zeroBody = await signedBody(allowedWorker, zeroChain, {
      privy_token: await identityToken([allowedWorker.address]),
    });
    expect(await problem(await postStatus(zeroBody))).toMatchObject({
      status: 400,
      code: "invalid_siwe_message",
    });

    // viem writes the address checksummed, so the case is changed in the text that is signed:
    // 0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf with its first letter in lower case.
    const mixed = allowedWorker.address.replace("0x7E5F", "0x7e5F");
    expect(mixed).not.toBe(allowedWorker.address);
    const withAddress = async (address: string) =>
      buildMessage("viem", allowedWorker, statement, fields(await nonceFor(allowedWorker))).replace(
        allowedWorker.address,
        address,
      );
    const token = await identityToken([allowedWorker.address]);
    const refused = await postStatus(
      await signedBody(allowedWorker, await withAddress(mixed), {
        privy_token: token,
        user_address: mixed,
      }),
    );
    expect(await problem(refused)).toMatchObject({ status: 400, code: "invalid_siwe_message" });
    // All in lower case carries no checksum to get wrong: accepted.
    const lower = allowedWorker.address.toLowerCase();
    const accepted = await postStatus(
      await signedBody(allowedWorker, await withAddress(lower), {
        privy_token: token,
        user_address: lower,
      }),
    );
    expect(accepted.status).toBe(200);
  });

  it("lets only WORKER_ADDRESSES pick up, or the worker named at creation, and tells outsiders no more than 404", async () => {
    const open = await createDeployment();
    const outsider = newAccount();
    const unknown = await problem(await postStatus(await pickUp(outsider, "no-such-request")));
    const notAllowed = await problem(await postStatus(await pickUp(outsider, open.request_id)));
    expect(unknown).toMatchObject({ status: 404, code: "deployment_not_found" });
    expect(notAllowed).toMatchObject({ status: 404, code: "deployment_not_found" });
    expect(notAllowed.detail.replace(open.request_id, "no-such-request")).toBe(unknown.detail);

    const named = newAccount();
    const assigned = await createDeployment({ worker_address: named.address });
    expect((await postStatus(await pickUp(allowedWorker, assigned.request_id))).status).toBe(409);
    expect((await postStatus(await pickUp(named, assigned.request_id))).status).toBe(200);
  });

  it("issues nonces from a CSPRNG: 128 bits each, consecutive ones unrelated", async () => {
    const nonces: string[] = [];
    for (let i = 0; i < 20; i++) nonces.push(await nonceFor(newAccount()));
    expect(new Set(nonces).size).toBe(20);
    for (const nonce of nonces) expect(nonce).toMatch(/^[0-9a-f]{32}$/);
    // Math.random nonces shared most characters with the next; random ones share ~1 in 16.
    let same = 0;
    for (let i = 1; i < nonces.length; i++)
      for (let j = 0; j < 32; j++) if (nonces[i]?.[j] === nonces[i - 1]?.[j]) same++;
    expect(same / (19 * 32)).toBeLessThan(0.2);
  });
});
