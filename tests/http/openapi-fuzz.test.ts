import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThrowawayPostgres, DATABASE_KINDS } from "../helpers/database-kinds";
import {
  type Case,
  casesOf,
  type OpenApiDocument,
  type Operation,
  operationsOf,
} from "../helpers/openapi-cases";
import { sampleProposal } from "../helpers/proposal";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * Every operation of the served /openapi.json, read from the document itself (paths, methods,
 * parameters, bodies), with edge values in each parameter and body field: numbers past int4 and
 * int8, negative, fractional, 1e309; years 0000, 9999 and 10000 in date-times; NUL, lone
 * surrogates, empty and long strings; a body missing, not JSON, not said to be JSON, too large.
 * Each goes with the admin key and without, and every path also gets the methods no operation of
 * it has (TRACE, PROPFIND, a lower-case get).
 * No answer may be a 5xx, and an operation answers only with statuses the document lists for it.
 * tests/http/fuzz.test.ts throws random bodies and headers at a few paths; this walks them all.
 */

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}` };
const OTHER_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const UNKNOWN_METHODS = ["TRACE", "PROPFIND", "get"];
/** Requests in flight at once: enough to keep the server busy, few enough for 2 cores. */
const PARALLEL = 6;

type Answer = { status: number; text: string; requestId: string };
type Finding = { request: string; answer: Answer };

describe.each(DATABASE_KINDS)("every operation of /openapi.json with edge values on %s", (kind) => {
  let server: RunningServer;
  let dropDatabase: (() => Promise<void>) | undefined;
  const seeded: Record<string, string> = {};

  beforeAll(async () => {
    const throwaway = kind === "postgres" ? await createThrowawayPostgres() : undefined;
    dropDatabase = throwaway?.drop;
    server = await startServer(throwaway ? { DATABASE_URL: throwaway.url } : {});
    // Something for the baselines to find, so edge values reach past "not found".
    const send = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { ...admin, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(response.status, `${method} ${path}`).toBeLessThan(300);
      return response.json();
    };
    await send("POST", "/agents", { aid: "fuzz-agent" });
    seeded.key = (await send("POST", "/agents/fuzz-agent/keys", { name: "fuzz" })).id;
    seeded.deployment = String(
      (
        await send("POST", "/v1/deployments", {
          user_address: "0x0000000000000000000000000000000000000002",
          proposal: sampleProposal,
        })
      ).id,
    );
    await send("PUT", "/prices/fuzz-model", { input_per_million: 1, output_per_million: 2 });
    // An endpoint no delivery reaches (the name does not resolve), with a delivery to retry.
    seeded.webhook = (
      await send("POST", "/webhooks", {
        url: "https://hooks.invalid/fuzz",
        events: ["agent.updated"],
      })
    ).id;
    seeded.delivery = String((await send("POST", `/webhooks/${seeded.webhook}/test`)).id);
    await fetch(`${server.url}/fuzz-agent/chat?q=hello`);
    seeded.admin = (
      await send("POST", "/admins", { name: "Fuzz", email: "fuzz@example.com", role: "viewer" })
    ).id;
    seeded.adminKey = (await send("POST", `/admins/${seeded.admin}/keys`, { name: "fuzz" })).id;
  });
  afterAll(async () => {
    await server?.stop();
    await dropDatabase?.();
  });

  /** The seeded value of a path parameter, by its name (an `id` by the path it is in). */
  const seeds = (operation: Operation, name: string): string | undefined => {
    if (operation.template.startsWith("/admins"))
      return { id: seeded.admin, key_id: seeded.adminKey }[name];
    if (name === "id") {
      if (operation.template.startsWith("/v1/deployments")) return seeded.deployment;
      return operation.template.startsWith("/webhooks") ? seeded.webhook : seeded.key;
    }
    if (name === "delivery_id") return seeded.delivery;
    return { aid: "fuzz-agent", chat_id: "default", model: "fuzz-model" }[name];
  };

  let sent = 0;
  const nextId = () => `fuzz-${kind}-${++sent}`;

  async function sendCase(c: Case, withKey: boolean): Promise<Answer> {
    const requestId = nextId();
    const response = await fetch(`${server.url}${c.target}`, {
      method: c.method,
      headers: {
        "x-request-id": requestId,
        ...(withKey ? admin : {}),
        ...(c.body === undefined ? {} : { "content-type": c.contentType ?? "application/json" }),
      },
      ...(c.body === undefined ? {} : { body: c.body }),
    });
    return { status: response.status, text: await response.text(), requestId };
  }

  /** A method fetch would refuse or rewrite (TRACE, a lower-case get), on a raw socket. */
  function sendRaw(method: string, target: string, withKey: boolean): Promise<Answer> {
    const requestId = nextId();
    const { hostname, port } = new URL(server.url);
    return new Promise((resolve, reject) => {
      let received = "";
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `${method} ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nX-Request-Id: ${requestId}\r\n` +
            `${withKey ? `Authorization: ${admin.authorization}\r\n` : ""}Connection: close\r\n\r\n`,
        );
      });
      socket.setEncoding("utf8");
      socket.on("data", (data) => {
        received += data;
      });
      socket.on("error", reject);
      socket.on("close", () => {
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]);
        if (Number.isNaN(status)) reject(new Error(`${method} ${target}: no answer`));
        else resolve({ status, text: received.split("\r\n\r\n").slice(1).join(""), requestId });
      });
    });
  }

  /** The request and answer as a person reads them, with the server's log lines of the request. */
  function explain({ request, answer }: Finding): string {
    const log = server
      .output()
      .split("\n")
      .filter((line) => line.includes(`"${answer.requestId}"`));
    return [request, `  → ${answer.status} ${answer.text.slice(0, 400)}`, ...log].join("\n");
  }

  async function inParallel<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < items.length) await work(items[next++] as T);
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
  }

  /** What one pass found: answers of 5xx, statuses the document does not list, and a tally. */
  function findings(name: string) {
    const serverErrors: Finding[] = [];
    const undocumented = new Map<string, Finding>();
    const statuses: Record<number, number> = {};
    const started = Date.now();
    const sentBefore = sent;
    return {
      record(request: string, answer: Answer, operation?: Operation) {
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        if (answer.status >= 500) serverErrors.push({ request, answer });
        else if (operation && !(String(answer.status) in operation.responses)) {
          const key = `${operation.method} ${operation.template} ${answer.status}`;
          if (!undocumented.has(key)) undocumented.set(key, { request, answer });
        }
      },
      check() {
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        console.info(
          `openapi fuzz on ${kind}, ${name}: ${sent - sentBefore} requests in ${seconds} s; statuses ${JSON.stringify(statuses)}`,
        );
        expect.soft(serverErrors.map(explain)).toEqual([]);
        expect.soft([...undocumented.values()].map(explain)).toEqual([]);
      },
    };
  }

  const documentOf = async () =>
    (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;

  /** The paths callers chat on (`/v1/…`, `/{aid}/…`), or the others (the admin's). */
  const callers = (o: Operation) =>
    o.template.startsWith("/v1/") || o.template.startsWith("/{aid}");

  async function fuzzOperations(name: string, which: (o: Operation) => boolean) {
    const doc = await documentOf();
    // A DELETE baseline removes what it names: those go last (a pass of their own), the longest
    // paths first, so the agent itself goes the very last.
    const deletes = name === "DELETE operations";
    const operations = operationsOf(doc)
      .filter(which)
      .sort((a, b) => (deletes ? b.template.length - a.template.length : 0));
    expect(operations.length).toBeGreaterThan(5);
    const found = findings(name);
    for (const operation of operations) {
      // Without a key, an operation that needs one refuses before it reads its input (the body's
      // form aside): the edge values go without a key only where anyone may call.
      const anyone =
        !operation.security?.length ||
        operation.security.some((requirement) => Object.keys(requirement).length === 0);
      const cases = casesOf(doc, operation, seeds).flatMap((c) => [
        { c, withKey: true },
        ...(anyone || !c.edge ? [{ c, withKey: false }] : []),
      ]);
      await inParallel(cases, async ({ c, withKey }) => {
        const answer = await sendCase(c, withKey);
        const body = c.body === undefined ? "" : `\n  body: ${c.body.slice(0, 300)}`;
        const request = `${c.method} ${c.target.slice(0, 300)} (${withKey ? "admin key" : "no key"}; ${c.varied})${body}`;
        found.record(request, answer, c.ofOperation ? operation : undefined);
      });
    }
    found.check();
  }

  // Four passes, in this order (a test file's tests run one after another).
  it("answers no edge value with a 5xx, and each operation only as the document says", () =>
    fuzzOperations("callers' operations", (o) => o.method !== "DELETE" && callers(o)));

  it("does the same for the admin's operations other than DELETE", () =>
    fuzzOperations("admin's operations", (o) => o.method !== "DELETE" && !callers(o)));

  it("does the same for the DELETE operations, last, as they remove what others read", () =>
    fuzzOperations("DELETE operations", (o) => o.method === "DELETE"));

  it("answers a method no operation of a path has without a 5xx", async () => {
    const doc = await documentOf();
    const found = findings("other methods");
    const paths = Object.keys(doc.paths).map((template) => {
      const documented = Object.keys(doc.paths[template] ?? {}).map((m) => m.toUpperCase());
      const target = template.replace(/\{(\w+)\}/g, (_, name: string) =>
        encodeURIComponent(
          seeds({ template, method: "GET", responses: {} }, name) ?? "fuzz-unknown",
        ),
      );
      const methods = [...OTHER_METHODS.filter((m) => !documented.includes(m)), ...UNKNOWN_METHODS];
      return methods.flatMap((method) => [
        { method, target, withKey: true },
        { method, target, withKey: false },
      ]);
    });
    await inParallel(paths.flat(), async ({ method, target, withKey }) => {
      const answer = await sendRaw(method, target, withKey);
      found.record(`${method} ${target} (${withKey ? "admin key" : "no key"})`, answer);
    });

    found.check();
  });
});
