import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createThrowawayPostgres,
  DATABASE_KINDS,
  type DatabaseKind,
} from "../helpers/database-kinds";
import { startTestProvider, type TestProvider } from "../helpers/oidc-provider";
import { freePort, type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * Sign in with SSO against a real OpenID provider (oidc-provider, started here over https with a
 * CA made here, which the service trusts through NODE_EXTRA_CA_CERTS). The provider issues real
 * signed id tokens; the test plays the browser: the service's start path, the provider's pages,
 * the service's callback. Who may sign in is OIDC_ROLE_RULES': a verified email at example.com is
 * a viewer, the `platform` group an operator. Refusals (an email no rule allows, a replayed state,
 * a tampered id token, a provider that names another issuer, a missing or wrong browser binding)
 * open no session, are audited, and count against the sign-in throttle.
 */

const RULES = "domain:example.com=viewer,group:platform=operator";
const accounts = {
  alice: { email: "alice@example.com", email_verified: true, groups: ["staff"] },
  bob: { email: "bob@partner.test", email_verified: true, groups: ["platform"] },
  carol: { email: "carol@elsewhere.test", email_verified: true, groups: ["sales"] },
  // In the allowed domain, but the provider has not verified the address.
  dave: { email: "dave@example.com", email_verified: false },
};
type Account = keyof typeof accounts;

let provider: TestProvider;
const ports = {} as Record<DatabaseKind, number>;

beforeAll(async () => {
  for (const kind of DATABASE_KINDS) ports[kind] = await freePort();
  provider = await startTestProvider({
    redirectUris: DATABASE_KINDS.map(
      (kind) => `http://127.0.0.1:${ports[kind]}/auth/oidc/callback`,
    ),
    accounts,
  });
});
afterAll(() => provider?.stop());

describe.each(DATABASE_KINDS)("Sign in with SSO on %s", (kind) => {
  let server: RunningServer;
  let dropDatabase: (() => Promise<void>) | undefined;
  let lastOctet = 0;
  /** Headers of a client with an address of its own (the throttle counts by address). */
  const newClient = () => ({ "x-forwarded-for": `203.0.113.${++lastOctet}` });

  beforeAll(async () => {
    const throwaway = kind === "postgres" ? await createThrowawayPostgres() : undefined;
    dropDatabase = throwaway?.drop;
    const port = ports[kind];
    server = await startServer(
      {
        ...(throwaway ? { DATABASE_URL: throwaway.url } : {}),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        TRUST_PROXY: "1",
        NODE_EXTRA_CA_CERTS: provider.caFile,
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_SCOPES: "openid email groups",
        OIDC_ROLE_RULES: RULES,
      },
      { port },
    );
  });
  afterAll(async () => {
    await server?.stop();
    await dropDatabase?.();
  });

  const cookieNamed = (response: Response, name: string) =>
    response.headers
      .getSetCookie()
      .find((line) => line.startsWith(`${name}=`))
      ?.split(";")[0];

  /** The start path: the provider's address and the browser binding cookie it set. */
  async function start(client: Record<string, string>, next?: string) {
    const query = next === undefined ? "" : `?next=${encodeURIComponent(next)}`;
    const response = await fetch(`${server.url}/auth/oidc/start${query}`, {
      redirect: "manual",
      headers: client,
    });
    expect(response.status, await response.clone().text()).toBe(302);
    const binding = cookieNamed(response, "agent_oidc_binding");
    expect(binding).toMatch(/^agent_oidc_binding=[\w-]{43}$/);
    expect(response.headers.get("set-cookie")).toMatch(
      /Path=\/auth\/oidc\/callback; HttpOnly; SameSite=Lax; Max-Age=600/,
    );
    return { authorize: response.headers.get("location") as string, binding: binding as string };
  }

  /** A whole sign-in up to the provider's redirect back: the callback URL and the binding. */
  async function atProvider(account: Account, client: Record<string, string>, next?: string) {
    const { authorize, binding } = await start(client, next);
    const callback = await provider.browser().signInAt(authorize, account);
    expect(callback).toMatch(new RegExp(`^${server.url}/auth/oidc/callback\\?code=`));
    return { callback, binding };
  }

  const back = (callback: string, client: Record<string, string>, cookie?: string) =>
    fetch(callback, { redirect: "manual", headers: { ...client, ...(cookie ? { cookie } : {}) } });

  async function sessionOf(cookie: string) {
    const response = await fetch(`${server.url}/api/trpc/auth.session`, {
      headers: { cookie, origin: server.url },
    });
    return (await response.json()).result.data;
  }

  async function audited(action: string, target: string) {
    const query = new URLSearchParams({ action, target });
    const response = await fetch(`${server.url}/audit?${query}`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()).entries as { actor: string; after: Record<string, unknown> }[];
  }

  it("refuses to start with a provider whose discovery names another issuer (503), then works once it does not", async () => {
    provider.switches.misnameIssuer = true;
    try {
      const response = await fetch(`${server.url}/auth/oidc/start`, { redirect: "manual" });
      expect(response.status).toBe(503);
      expect(response.headers.get("content-type")).toMatch(/problem\+json/);
      expect(await response.json()).toMatchObject({ code: "service_unavailable" });
    } finally {
      provider.switches.misnameIssuer = false;
    }
    // A failed discovery is not kept: the next start discovers again.
    await start(newClient());
  });

  it("signs in a verified email of a domain rule as a viewer, back to the page asked for", async () => {
    const client = newClient();
    const login = await (await fetch(`${server.url}/login?next=%2Fdashboard%2Fagents`)).text();
    expect(login).toContain("Sign in with SSO");
    expect(login).toContain('href="/auth/oidc/start?next=%2Fdashboard%2Fagents"');

    const { callback, binding } = await atProvider("alice", client, "/dashboard/agents");
    const response = await back(callback, client, binding);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/dashboard/agents");
    const session = cookieNamed(response, "agent_session") as string;
    expect(session).toMatch(/^agent_session=[\w-]{43}$/);
    // The binding is spent with the attempt.
    expect(response.headers.get("set-cookie")).toMatch(/agent_oidc_binding=; Path=[^,]*Max-Age=0/);
    expect(await sessionOf(session)).toEqual({
      role: "viewer",
      via: "oidc",
      email: "alice@example.com",
    });
    const dashboard = await fetch(`${server.url}/dashboard/agents`, {
      redirect: "manual",
      headers: { cookie: session },
    });
    expect(dashboard.status).toBe(200);
    const [entry] = await audited("sign_in.succeeded", "oidc:alice@example.com");
    expect(entry).toMatchObject({
      actor: "oidc:alice@example.com",
      after: { via: "oidc", role: "viewer", issuer: provider.issuer, subject: "alice" },
    });
  });

  it("signs in a member of a group rule as an operator, to the dashboard's home", async () => {
    const client = newClient();
    const { callback, binding } = await atProvider("bob", client);
    const response = await back(callback, client, binding);
    expect(response.headers.get("location")).toBe("/dashboard");
    const session = cookieNamed(response, "agent_session") as string;
    expect(await sessionOf(session)).toMatchObject({
      email: "bob@partner.test",
      role: "operator",
    });
  });

  it("refuses an email no rule allows, and an unverified one in an allowed domain: no session, audited, said on the sign-in page", async () => {
    const client = newClient();
    const { callback, binding } = await atProvider("carol", client, "/dashboard/prices");
    const response = await back(callback, client, binding);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(
      "/login?error=sso_not_allowed&email=carol%40elsewhere.test&next=%2Fdashboard%2Fprices",
    );
    expect(cookieNamed(response, "agent_session")).toBeUndefined();
    const [entry] = await audited("sign_in.refused", "oidc:carol@elsewhere.test");
    expect(entry).toMatchObject({
      actor: "anonymous",
      after: {
        reason: "neither the admins list nor a rule allows this identity",
        email: "carol@elsewhere.test",
      },
    });
    const page = await (await fetch(`${server.url}${response.headers.get("location")}`)).text();
    expect(page).toContain(
      "Your identity provider account (carol@elsewhere.test) is not allowed to sign in here.",
    );

    const unverified = await atProvider("dave", client);
    const refused = await back(unverified.callback, client, unverified.binding);
    expect(refused.headers.get("location")).toMatch(/^\/login\?error=sso_not_allowed&/);
    expect(cookieNamed(refused, "agent_session")).toBeUndefined();
  });

  it("signs in a verified email of the admins list with its role there, which acts at once", async () => {
    const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
    const added = await fetch(`${server.url}/admins`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ name: "Carol", email: "Carol@Elsewhere.test", role: "owner" }),
    });
    expect(added.status).toBe(201);
    const { id } = await added.json();
    const client = newClient();
    const { callback, binding } = await atProvider("carol", client);
    const response = await back(callback, client, binding);
    expect(response.headers.get("location")).toBe("/dashboard");
    const session = cookieNamed(response, "agent_session") as string;
    expect(await sessionOf(session)).toEqual({
      role: "owner",
      via: "oidc",
      email: "carol@elsewhere.test",
      admin: id,
    });
    const [entry] = await audited("sign_in.succeeded", `admin:${id}`);
    expect(entry).toMatchObject({ actor: `admin:${id}`, after: { via: "oidc", role: "owner" } });
    // Lowered in the list, lowered at once; removed, and no rule allows her, no session.
    await fetch(`${server.url}/admins/${id}`, {
      method: "PATCH",
      headers: admin,
      body: JSON.stringify({ role: "viewer" }),
    });
    expect(await sessionOf(session)).toMatchObject({ role: "viewer" });
    await fetch(`${server.url}/admins/${id}`, { method: "DELETE", headers: admin });
    expect(await sessionOf(session)).toBeNull();
  });

  it("refuses a replayed state: the same callback twice signs in once", async () => {
    const client = newClient();
    const { callback, binding } = await atProvider("alice", client);
    const first = await back(callback, client, binding);
    expect(first.headers.get("location")).toBe("/dashboard");
    const again = await back(callback, client, binding);
    expect(again.status).toBe(302);
    expect(again.headers.get("location")).toBe("/login?error=sso_expired");
    expect(cookieNamed(again, "agent_session")).toBeUndefined();
  });

  it("refuses an id token whose claims were changed after the provider signed it", async () => {
    const client = newClient();
    // carol's token rewritten to name mallory@example.com, whom the domain rule would let in.
    provider.switches.tamperIdTokens = true;
    let response: Response;
    try {
      const { callback, binding } = await atProvider("carol", client);
      response = await back(callback, client, binding);
    } finally {
      provider.switches.tamperIdTokens = false;
    }
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/login?error=sso_failed");
    expect(cookieNamed(response, "agent_session")).toBeUndefined();
    const entries = await audited("sign_in.refused", `oidc:${provider.issuer}`);
    expect(entries.map((entry) => entry.after.reason)).toContainEqual(
      expect.stringMatching(/signature/i),
    );
  });

  it("refuses a callback without the browser binding cookie, or with another browser's", async () => {
    const client = newClient();
    const missing = await atProvider("alice", client);
    const withoutCookie = await back(missing.callback, client);
    expect(withoutCookie.headers.get("location")).toBe("/login?error=sso_browser");
    expect(cookieNamed(withoutCookie, "agent_session")).toBeUndefined();

    // An attacker's callback URL opened in a victim's browser, which has a binding of its own.
    const victim = await start(client);
    const attacker = await atProvider("alice", newClient());
    const forced = await back(attacker.callback, client, victim.binding);
    expect(forced.headers.get("location")).toBe("/login?error=sso_browser");
    expect(cookieNamed(forced, "agent_session")).toBeUndefined();
  });

  it("bounds the SSO sign-ins one client has under way at 20, across workers, freed as they finish", async () => {
    const client = newClient();
    const startNow = () =>
      fetch(`${server.url}/auth/oidc/start`, { redirect: "manual", headers: client });
    const starts = await Promise.all(Array.from({ length: 30 }, startNow));
    const sent = starts.filter((response) => response.status === 302);
    const refused = starts.filter((response) => response.status === 429);
    expect([sent.length, refused.length]).toEqual([20, 10]);
    const one = refused[0] as Response;
    expect(one.headers.get("content-type")).toBe("application/problem+json");
    expect(Number(one.headers.get("retry-after"))).toBeGreaterThan(590);
    expect((await one.json()).detail).toMatch(
      /^Too many SSO sign-ins are under way from your address \(20\); finish one, or try again in \d+ s\.$/,
    );
    // Another address is not held back by this one.
    await start(newClient());
    // A finished sign-in frees its place, for one more start.
    const first = sent[0] as Response;
    const callback = await provider
      .browser()
      .signInAt(first.headers.get("location") as string, "alice");
    const done = await back(callback, client, cookieNamed(first, "agent_oidc_binding"));
    expect(done.headers.get("location")).toBe("/dashboard");
    await start(client);
    expect((await startNow()).status).toBe(429);
  });

  it("counts refused callbacks against the sign-in throttle, and refuses a blocked client's good one without spending it", async () => {
    const client = newClient();
    const { callback, binding } = await atProvider("alice", client);
    // Five failures are free; the sixth blocks the client for a second.
    for (let i = 0; i < 6; i++) {
      const guess = await back(`${server.url}/auth/oidc/callback?code=x&state=guess-${i}`, client);
      expect(guess.headers.get("location")).toBe("/login?error=sso_expired");
    }
    const blocked = await back(callback, client, binding);
    expect(blocked.headers.get("location")).toBe("/login?error=too_many_attempts");
    // Nor does a blocked client start another sign-in: it could not finish it.
    const starting = await fetch(`${server.url}/auth/oidc/start`, {
      redirect: "manual",
      headers: client,
    });
    expect(starting.status).toBe(429);
    expect((await starting.json()).detail).toMatch(/^Too many failed sign-ins/);
    expect(cookieNamed(blocked, "agent_session")).toBeUndefined();
    // The block was checked before the attempt was spent: once it ends, the callback signs in.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const after = await back(callback, client, binding);
    expect(after.headers.get("location")).toBe("/dashboard");
    expect(cookieNamed(after, "agent_session")).toBeDefined();
  });
});
