import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * Sessions kept in the database (sign-out and "sign out everyone" end them at once), wrong
 * keys throttled per client address, and nonces limited per client address. One server with
 * a trusted proxy, so that each test speaks from addresses of its own (X-Forwarded-For).
 */
describe("sessions, throttling and nonce limits over HTTP", () => {
  let server: RunningServer;
  let lastOctet = 0;
  /** Headers of a client with an address of its own. */
  const newClient = () => ({ "x-forwarded-for": `198.51.100.${++lastOctet}` });

  beforeAll(async () => {
    server = await startServer({ TRUST_PROXY: "1", NONCE_RATE_LIMIT_RPM: "5" });
  });
  afterAll(() => server?.stop());

  const trpc = (path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(`${server.url}/api/trpc/${path}`, {
      method: init.body === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json", origin: server.url, ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  const signInWithKey = async (client: Record<string, string>, key = TEST_ADMIN_KEY) =>
    trpc("auth.signInWithKey", { body: { key }, headers: client });
  const cookieOf = (response: Response) =>
    (response.headers.get("set-cookie") ?? "").split(";")[0] as string;
  const sessionOf = async (cookie: string) =>
    (await (await trpc("auth.session", { headers: { cookie } })).json()).result.data;

  it("ends a session on sign-out: a copy of its cookie stops working at once", async () => {
    const client = newClient();
    const cookie = cookieOf(await signInWithKey(client));
    expect(await sessionOf(cookie)).toEqual({ role: "owner", via: "api_key" });
    const copy = cookie;
    const out = await trpc("auth.signOut", { body: {}, headers: { cookie, ...client } });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect(await sessionOf(copy)).toBeNull();
    expect(
      (await fetch(`${server.url}/api/trpc/agents.list`, { headers: { cookie: copy } })).status,
    ).toBe(401);
  });

  it("audits an admin's sign-in and each refused one, never the key tried", async () => {
    const client = newClient();
    expect((await signInWithKey(client, "not-the-key-audited-0123456789")).status).toBe(401);
    expect((await signInWithKey(client)).status).toBe(200);
    const audit = async (query: string) =>
      (
        await (
          await fetch(`${server.url}/audit?${query}`, {
            headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
          })
        ).json()
      ).entries;
    const [refused] = await audit("action=sign_in.refused&target=admin-key");
    expect(refused).toMatchObject({
      actor: "anonymous",
      actor_via: "session",
      after: { via: "api_key", reason: "The admin API key is not valid." },
    });
    expect(refused.client).toEqual(expect.any(String));
    const [succeeded] = await audit("action=sign_in.succeeded&target=admin-key");
    expect(succeeded).toMatchObject({
      actor: "admin-key",
      actor_via: "session",
      after: { via: "api_key", role: "owner" },
    });
    expect(JSON.stringify(await audit("limit=100"))).not.toContain("not-the-key-audited");
  });

  it("signs a person in with their own key, with its role, until it is revoked", async () => {
    const owner = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
    const person = await (
      await fetch(`${server.url}/admins`, {
        method: "POST",
        headers: owner,
        body: JSON.stringify({
          name: "Keyholder",
          email: "keyholder@example.com",
          role: "operator",
        }),
      })
    ).json();
    const made = await (
      await fetch(`${server.url}/admins/${person.id}/keys`, {
        method: "POST",
        headers: owner,
        body: JSON.stringify({ name: "browser", role: "viewer" }),
      })
    ).json();
    const client = newClient();
    const signedIn = await signInWithKey(client, made.key);
    expect((await signedIn.json()).result.data).toEqual({
      role: "viewer",
      via: "personal_key",
      admin: person.id,
    });
    const cookie = cookieOf(signedIn);
    expect(await sessionOf(cookie)).toMatchObject({ role: "viewer", admin: person.id });
    const refused = await trpc("auth.endAllSessions", { body: {}, headers: { cookie, ...client } });
    expect(refused.status).toBe(403);
    await fetch(`${server.url}/admins/${person.id}/keys/${made.id}`, {
      method: "DELETE",
      headers: owner,
    });
    expect(await sessionOf(cookie)).toBeNull();
    const again = await signInWithKey(client, made.key);
    expect(again.status).toBe(401);
    expect((await again.json()).error.message).toBe(
      "The admin key is not valid: unknown, revoked or expired.",
    );
  });

  it("lets an admin end every session", async () => {
    const first = cookieOf(await signInWithKey(newClient()));
    const second = cookieOf(await signInWithKey(newClient()));
    const ended = await trpc("auth.endAllSessions", { body: {}, headers: { cookie: first } });
    expect(ended.status).toBe(200);
    const { ended: count } = (await ended.json()).result.data;
    expect(count).toBeGreaterThanOrEqual(2);
    expect(await sessionOf(first)).toBeNull();
    const audited = await (
      await fetch(`${server.url}/audit?action=sessions.ended`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
      })
    ).json();
    expect(audited.entries[0]).toMatchObject({
      actor: "admin-key",
      actor_via: "session",
      after: { ended: count },
    });
    expect(await sessionOf(second)).toBeNull();
  });

  it("sends a dashboard page asked for without a session to sign in, naming that page, whatever the client claims", async () => {
    const asked = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${path}`, {
        redirect: "manual",
        headers: { ...newClient(), ...headers },
      });
    const deep = await asked("/dashboard/agents/support-bot?tab=runs");
    expect(deep.status).toBe(307);
    expect(deep.headers.get("location")).toBe(
      "/login?next=%2Fdashboard%2Fagents%2Fsupport-bot%3Ftab%3Druns",
    );
    // The path is the request's own: a header of that name from the client is overwritten.
    const claimed = await asked("/dashboard/prices", {
      "x-agent-service-path": "https://evil.example/dashboard",
    });
    expect(claimed.headers.get("location")).toBe("/login?next=%2Fdashboard%2Fprices");
    // A cookie that signs nobody in: the session ended, which the sign-in page says.
    const ended = await asked("/dashboard/agents", { cookie: "agent_session=gone" });
    expect(ended.headers.get("location")).toBe("/login?ended=1&next=%2Fdashboard%2Fagents");
  });

  it("blocks a client after a few wrong admin keys, with a growing wait, right key or not", async () => {
    const attacker = newClient();
    const guess = (key: string) =>
      fetch(`${server.url}/agents`, { headers: { authorization: `Bearer ${key}`, ...attacker } });
    // Guesses that could be the admin key: of its length.
    const wrong = (i: number) => `wrong-key-${i}-`.padEnd(TEST_ADMIN_KEY.length, "0");
    for (let i = 0; i < 5; i++) expect((await guess(wrong(i))).status).toBe(401);
    // The sixth failure blocks it for 1 s, the seventh for 2 s...
    expect((await guess(wrong(5))).status).toBe(401);
    const blocked = await guess(TEST_ADMIN_KEY);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toBe("1");
    expect(await blocked.json()).toMatchObject({ code: "too_many_attempts" });
    // Sign-in with the key is throttled alike, for the same client.
    expect((await signInWithKey(attacker)).status).toBe(429);
    // Another client is not affected.
    expect(
      (
        await fetch(`${server.url}/agents`, {
          headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, ...newClient() },
        })
      ).status,
    ).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await guess(wrong(6))).status).toBe(401);
    const longer = await guess(TEST_ADMIN_KEY);
    expect(longer.status).toBe(429);
    expect(longer.headers.get("retry-after")).toBe("2");
  });

  it("does not count a bearer that cannot be the admin key: OpenAI keys and placeholders", async () => {
    const client = newClient();
    const openAi = `sk-proj-${"A".repeat(TEST_ADMIN_KEY.length - 8)}`;
    for (const bearer of [
      openAi,
      "sk-no-key-required",
      "a-placeholder-key-of-some-length",
      "x".repeat(200),
    ]) {
      for (let i = 0; i < 6; i++) {
        const answer = await fetch(`${server.url}/v1/models`, {
          headers: { authorization: `Bearer ${bearer}`, ...client },
        });
        expect(answer.status, bearer).toBe(200);
      }
    }
    const admin = await fetch(`${server.url}/agents`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, ...client },
    });
    expect(admin.status).toBe(200);
  });

  it("throttles failed wallet and key sign-ins per client", async () => {
    const client = newClient();
    for (let i = 0; i < 6; i++) {
      expect((await signInWithKey(client, `not-the-key-${i}-0123456789`)).status).toBe(401);
    }
    const refused = await signInWithKey(client);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("set-cookie")).toBeNull();
    const wallet = await trpc("auth.signIn", {
      body: { message: "not a message", signature: "0x00" },
      headers: client,
    });
    expect(wallet.status).toBe(429);
  });

  it("issues at most NONCE_RATE_LIMIT_RPM nonces a minute to one client address", async () => {
    const client = newClient();
    const address = "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4";
    const nonce = () =>
      fetch(`${server.url}/v1/nonce?user_address=${address}`, { headers: client });
    for (let i = 0; i < 5; i++) expect((await nonce()).status).toBe(200);
    const refused = await nonce();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(50);
    expect(await refused.json()).toMatchObject({ code: "rate_limited" });
    expect(
      (await fetch(`${server.url}/v1/nonce?user_address=${address}`, { headers: newClient() }))
        .status,
    ).toBe(200);
  });
});

describe("a session opened with the admin key, when the admin key changes", () => {
  it("ends: after a restart with a new ADMIN_API_KEY the old cookie is no session", async () => {
    const first = await startServer();
    const trpcOn = (
      server: RunningServer,
      path: string,
      init: { body?: unknown; cookie?: string },
    ) =>
      fetch(`${server.url}/api/trpc/${path}`, {
        method: init.body === undefined ? "GET" : "POST",
        headers: {
          "content-type": "application/json",
          origin: server.url,
          ...(init.cookie ? { cookie: init.cookie } : {}),
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    const signedIn = await trpcOn(first, "auth.signInWithKey", { body: { key: TEST_ADMIN_KEY } });
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const list = "agents.list?input=%7B%7D";
    expect((await trpcOn(first, list, { cookie })).status).toBe(200);
    // Stopped, not removed: the same data directory, started again on another key.
    expect(await first.signal("SIGTERM")).toBe(0);
    const newKey = "a-new-admin-key-0123456789abcdef";
    const second = await startServer({ ADMIN_API_KEY: newKey }, { dataDir: first.dataDir });
    try {
      const session = await (await trpcOn(second, "auth.session", { cookie })).json();
      expect(session.result.data).toBeNull();
      expect((await trpcOn(second, list, { cookie })).status).toBe(401);
      const made = await trpcOn(second, "auth.signInWithKey", { body: { key: newKey } });
      const fresh = (made.headers.get("set-cookie") ?? "").split(";")[0] as string;
      expect((await trpcOn(second, list, { cookie: fresh })).status).toBe(200);
    } finally {
      await second.stop();
    }
  });
});
