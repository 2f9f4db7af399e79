import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThrowawayPostgres, DATABASE_KINDS } from "../helpers/database-kinds";
import {
  casesOf,
  type OpenApiDocument,
  type Operation,
  operationsOf,
} from "../helpers/openapi-cases";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * Issue #49, item 1: every operation of /openapi.json that takes the admin key declares the role
 * it needs (`x-role`, from its procedure's builder), and is called here with a person's key of
 * every role and with none: no key is a 401; a role below the declared one is a 403 with a
 * sentence naming both; the declared role and above get past the check (whatever the operation
 * then answers). tests/integration/roles.test.ts does the same for every tRPC procedure.
 */

const ROLES = ["viewer", "operator", "owner"] as const;
type Role = (typeof ROLES)[number];
const owner = { authorization: `Bearer ${TEST_ADMIN_KEY}` };

describe.each(DATABASE_KINDS)("every admin operation with every role on %s", (kind) => {
  let server: RunningServer;
  let dropDatabase: (() => Promise<void>) | undefined;
  const keys = {} as Record<Role, string>;
  const seeded: Record<string, string> = {};

  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...owner, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.status, `${method} ${path}`).toBeLessThan(300);
    return response.status === 204 ? undefined : response.json();
  };

  beforeAll(async () => {
    const throwaway = kind === "postgres" ? await createThrowawayPostgres() : undefined;
    dropDatabase = throwaway?.drop;
    server = await startServer(throwaway ? { DATABASE_URL: throwaway.url } : {});
    for (const role of ROLES) {
      const person = await send("POST", "/admins", {
        name: `The ${role}`,
        email: `${role}@example.com`,
        role,
      });
      keys[role] = (await send("POST", `/admins/${person.id}/keys`, { name: "walk" })).key;
    }
    // What the operations' paths name: a person and key none of the walkers is.
    const target = await send("POST", "/admins", {
      name: "Target",
      email: "target@example.com",
      role: "viewer",
    });
    seeded.admin = target.id;
    seeded.adminKey = (await send("POST", `/admins/${target.id}/keys`, { name: "t" })).id;
    await send("POST", "/agents", { aid: "roles-agent" });
    seeded.agentKey = (await send("POST", "/agents/roles-agent/keys", { name: "k" })).id;
  });
  afterAll(async () => {
    await server?.stop();
    await dropDatabase?.();
  });

  const seeds = (operation: Operation, name: string): string | undefined => {
    if (operation.template.startsWith("/admins"))
      return { id: seeded.admin, key_id: seeded.adminKey }[name];
    if (name === "id") return seeded.agentKey;
    return { aid: "roles-agent", chat_id: "default", model: "roles-model" }[name];
  };

  const adminOperations = async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
    // Those for admins alone (a scraper's token aside); an operation anyone or an agent key may
    // call declares itself public, and decides inside what the admin's key adds.
    const operations = operationsOf(doc).filter(
      (o) =>
        (o.security?.length ?? 0) > 0 &&
        o.security?.every((r) => "adminKey" in r || "metricsToken" in r),
    );
    return { doc, operations };
  };

  it("declares a role for every operation that takes the admin key", async () => {
    const { operations } = await adminOperations();
    expect(operations.length).toBeGreaterThan(40);
    const undeclared = operations
      .filter((o) => !ROLES.includes((o as { "x-role"?: Role })["x-role"] as Role))
      .map((o) => `${o.method} ${o.template}`);
    expect(undeclared).toEqual([]);
  });

  it("lets each role do what is declared, and refuses lower roles with 403", async () => {
    const { doc, operations } = await adminOperations();
    // A DELETE removes what it names: those go last, the longest paths first.
    operations.sort(
      (a, b) =>
        Number(a.method === "DELETE") - Number(b.method === "DELETE") ||
        (a.method === "DELETE" ? b.template.length - a.template.length : 0),
    );
    const wrong: string[] = [];
    for (const operation of operations) {
      const needed = (operation as { "x-role"?: Role })["x-role"] as Role;
      const [baseline] = casesOf(doc, operation, seeds);
      if (!baseline) throw new Error(`${operation.method} ${operation.template}: no request`);
      for (const role of [undefined, ...ROLES]) {
        const response = await fetch(`${server.url}${baseline.target}`, {
          method: baseline.method,
          headers: {
            ...(role ? { authorization: `Bearer ${keys[role]}` } : {}),
            ...(baseline.body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(baseline.body === undefined ? {} : { body: baseline.body }),
        });
        const text = await response.text();
        const said = `${operation.method} ${operation.template} as ${role ?? "no one"} → ${response.status} ${text.slice(0, 200)}`;
        const allowed = role !== undefined && ROLES.indexOf(role) >= ROLES.indexOf(needed);
        if (role === undefined) {
          if (response.status !== 401) wrong.push(said);
        } else if (allowed) {
          if (response.status === 401 || response.status === 403 || response.status >= 500)
            wrong.push(said);
        } else {
          const detail = response.status === 403 ? JSON.parse(text).detail : "";
          if (!String(detail).startsWith(`This needs the ${needed} role (`)) wrong.push(said);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
