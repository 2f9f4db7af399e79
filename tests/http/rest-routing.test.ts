import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  casesOf,
  type OpenApiDocument,
  type Operation,
  operationsOf,
} from "../helpers/openapi-cases";
import { sampleProposal } from "../helpers/proposal";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * The REST paths are served by the server entry ahead of Next.js's router
 * (server/instance/rest-routes.ts), by the same handlers Next.js would call. Two servers, one
 * routing REST through the entry (the default) and one through Next.js (REST_ROUTING=nextjs),
 * get the same requests in the same order: every operation of /openapi.json with and without
 * the admin key, a few edge values each, a streamed chat, a CSV export, and paths the entry must
 * leave to Next.js. Each pair of answers must agree in status, headers (security headers,
 * request id, content type, Allow, WWW-Authenticate, rate-limit headers) and body; each
 * request must have its one access-log line with the same route and status on both; the chat
 * counters in /metrics must agree. Next.js marks what it serves with `Vary: rsc, …`: the
 * entry's answers must not carry it (so the test compares two routes, not one twice), and the
 * paths left to Next.js must.
 */

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}` };

/** Headers that differ between any two answers (time, framing) or are Next.js's own mark. */
const VOLATILE = new Set([
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "vary",
]);

type Exchange = {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  vary: string | null;
};

/** Values that differ between two databases by nature: times, random ids, keys and secrets. */
function normalise(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((item) => normalise(item));
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, normalise(item, name)]),
    );
  if (typeof value === "string") {
    if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value)) return "<time>";
    if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value))
      return "<uuid>";
    if (/^ak_/.test(value) || /^admk_/.test(value)) return "<key>";
    if (/^adm_[0-9a-f]{12}$/.test(value)) return "<admin>";
    if (/^whsec_/.test(value)) return "<secret>";
    if (/^wh_[0-9a-f]{16}$/.test(value)) return "<webhook>";
    if (/^msg_[0-9a-f]{32}$/.test(value)) return "<message>";
    if (/^chatcmpl-/.test(value)) return "<completion>";
    if (/^resp_[0-9a-f]{32}$/.test(value)) return "<response>";
    if (/^[0-9a-f]{12,}$/.test(value) && (key === "id" || key === "nonce")) return "<random>";
    // An audit entry's target names a key or webhook by its random id.
    if (key === "target")
      return value
        .replace(/^(agent_key:[^/]+\/)[0-9a-f]{12,}$/, "$1<random>")
        .replace(/^webhook:wh_[0-9a-f]{16}$/, "webhook:<webhook>")
        .replace(/^admin:adm_[0-9a-f]{12}(\/[0-9a-f]{12})?$/, "admin:<admin>$1")
        .replace(/^(admin:<admin>\/)[0-9a-f]{12}$/, "$1<random>");
    // Each server's own port (the document's servers, an agent card's interface).
    return value.replace(/^http:\/\/localhost:\d+(?=$|\/)/, "http://localhost:<port>");
  }
  if (typeof value === "number" && /(_ms|_s|seconds|uptime|^created|^created_at)$/.test(key))
    return "<n>";
  return value;
}

function bodyOf(contentType: string, text: string): unknown {
  if (/json/.test(contentType)) {
    try {
      return normalise(JSON.parse(text));
    } catch {
      return text;
    }
  }
  if (contentType.startsWith("text/event-stream"))
    return text
      .trim()
      .split("\n\n")
      .map((event) => {
        // OpenAI's stream has no event names: `data:` lines alone, the last `data: [DONE]`.
        // A chat's events have their id first (`id: <request id>/<n>`), the same on both.
        const lines = event.split("\n");
        const id = lines.find((line) => line.startsWith("id: "));
        const name = lines.find((line) => line.startsWith("event: ")) ?? "data";
        const payload = lines.find((line) => line.startsWith("data: "))?.slice(6) ?? "null";
        const data = payload === "[DONE]" ? payload : normalise(JSON.parse(payload));
        return id === undefined ? { name, data } : { id, name, data };
      });
  if (contentType.startsWith("text/csv"))
    return text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>");
  // Metrics and pages: what the process has done, not what the route is.
  return undefined;
}

describe("REST paths routed by the server entry and by Next.js", () => {
  let direct: RunningServer;
  let viaNext: RunningServer;
  const differences: string[] = [];
  let sent = 0;

  beforeAll(async () => {
    [direct, viaNext] = await Promise.all([startServer(), startServer({ REST_ROUTING: "nextjs" })]);
  });
  afterAll(async () => {
    await Promise.all([direct?.stop(), viaNext?.stop()]);
  });

  async function exchange(
    server: RunningServer,
    method: string,
    target: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<Exchange> {
    const response = await fetch(`${server.url}${target}`, {
      method,
      headers,
      redirect: "manual",
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    const kept: Record<string, string> = {};
    for (const [name, value] of response.headers)
      if (!VOLATILE.has(name)) kept[name] = name === "x-ratelimit-reset" ? "<s>" : value;
    const contentType = response.headers.get("content-type") ?? "";
    return {
      status: response.status,
      headers: kept,
      body: method === "HEAD" ? text : bodyOf(contentType, text),
      vary: response.headers.get("vary"),
    };
  }

  /** Sends one request to both servers; records how they differ. Returns the entry's answer. */
  async function both(
    method: string,
    target: string,
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<{ direct: Exchange; viaNext: Exchange; requestId: string }> {
    const requestId = `routing-${++sent}`;
    const all = { "x-request-id": requestId, ...headers };
    const a = await exchange(direct, method, target, all, body);
    const b = await exchange(viaNext, method, target, all, body);
    const what = `${method} ${target}${headers.authorization ? " (admin)" : ""}`;
    if (JSON.stringify(a.status) !== JSON.stringify(b.status))
      differences.push(`${what}: status ${a.status} against ${b.status}`);
    if (JSON.stringify(a.headers) !== JSON.stringify(b.headers))
      differences.push(
        `${what}: headers\n  ${JSON.stringify(a.headers)}\n  ${JSON.stringify(b.headers)}`,
      );
    if (JSON.stringify(a.body) !== JSON.stringify(b.body))
      differences.push(
        `${what}: body\n  ${JSON.stringify(a.body)?.slice(0, 600)}\n  ${JSON.stringify(b.body)?.slice(0, 600)}`,
      );
    return { direct: a, viaNext: b, requestId };
  }

  const routed: { requestId: string; what: string }[] = [];

  it("answers every operation alike, the entry's without Next.js's mark", async () => {
    const json = { ...admin, "content-type": "application/json" };
    await both("POST", "/agents", json, JSON.stringify({ aid: "routing-agent" }));
    await both(
      "POST",
      "/v1/deployments",
      json,
      JSON.stringify({
        user_address: "0x0000000000000000000000000000000000000002",
        proposal: sampleProposal,
      }),
    );
    await both(
      "PUT",
      "/prices/routing-model",
      json,
      JSON.stringify({ input_per_million: 1, output_per_million: 2 }),
    );
    await both("GET", "/routing-agent/chat?q=hello");

    const doc = (await (await fetch(`${direct.url}/openapi.json`)).json()) as OpenApiDocument;
    const seeds = (operation: Operation, name: string) =>
      name === "id"
        ? operation.template.startsWith("/v1/deployments")
          ? "1"
          : "00000000-0000-4000-8000-000000000000"
        : { aid: "routing-agent", chat_id: "default", model: "routing-model" }[name];
    // DELETEs last, the agent's own the very last: they remove what the others read.
    const operations = operationsOf(doc).sort(
      (a, b) =>
        Number(a.method === "DELETE") - Number(b.method === "DELETE") ||
        Number(a.template === "/agents/{aid}") - Number(b.template === "/agents/{aid}"),
    );
    for (const operation of operations) {
      const cases = casesOf(doc, operation, seeds);
      // The baseline, with and without the key, and a few edge values with it.
      const picked = [cases[0], ...cases.filter((c) => c.edge).slice(0, 3)];
      for (const [index, c] of picked.entries()) {
        if (!c) continue;
        const headers: Record<string, string> =
          c.body === undefined ? {} : { "content-type": c.contentType ?? "application/json" };
        for (const withKey of index === 0 ? [true, false] : [true]) {
          const answer = await both(
            c.method,
            c.target,
            withKey ? { ...admin, ...headers } : headers,
            c.body,
          );
          routed.push({ requestId: answer.requestId, what: `${c.method} ${c.target}` });
          // Every documented operation is served by the entry; Next.js marks what it serves.
          expect(answer.direct.vary, `${c.method} ${c.target}`).toBeNull();
          expect(answer.viaNext.vary, `${c.method} ${c.target}`).toMatch(/rsc/);
        }
      }
    }
    expect(differences, differences.join("\n")).toEqual([]);
  }, 180_000);

  it("streams a chat and exports CSV alike", async () => {
    await both(
      "POST",
      "/agents",
      { ...admin, "content-type": "application/json" },
      JSON.stringify({ aid: "routing-stream" }),
    );
    const stream = await both("GET", "/routing-stream/chat?q=hello%20there", {
      accept: "text/event-stream",
    });
    expect(stream.direct.status).toBe(200);
    expect((stream.direct.body as { name: string }[]).at(-1)?.name).toBe("event: done");
    const csv = await both("GET", "/agents/routing-stream/usage", { ...admin, accept: "text/csv" });
    expect(csv.direct.headers["content-type"]).toMatch(/^text\/csv/);
    // HEAD of the chat is an operation of its own (chat.check), served by the entry too.
    const head = await both("HEAD", "/routing-stream/chat?q=again", {
      accept: "text/event-stream",
    });
    expect(head.direct.status).toBe(200);
    expect(head.direct.vary).toBeNull();
    expect(differences, differences.join("\n")).toEqual([]);
  });

  it("leaves to Next.js what is not a REST route's, and answers it alike", async () => {
    for (const [method, target] of [
      ["GET", "/agents/"], // Next.js's redirect to /agents
      ["GET", "/agent%73/routing-stream"], // a percent-escape: Next.js decides
      ["GET", "/_next/chat"],
      ["GET", "/robots.txt"],
      ["OPTIONS", "/agents"],
      ["GET", "/dashboard"],
      ["GET", "/api/trpc/health"],
      ["GET", "//agents"], // an empty segment
      ["GET", "/agents;x"],
    ] as const) {
      const answer = await both(method, target, admin);
      expect(answer.direct.vary, `${method} ${target}`).toEqual(answer.viaNext.vary);
    }
    // HEAD of a path that declares GET alone is GET's answer without its body, by the entry too.
    const headOfGet = await both("HEAD", "/agents", admin);
    expect(headOfGet.direct.status).toBe(200);
    expect(headOfGet.direct.vary).toBeNull();
    // Routed by the entry, in Next.js's order: a first segment that only looks like a static one.
    const upper = await both("GET", "/AGENTS/chat?q=hello", admin);
    expect(upper.direct.vary).toBeNull();
    expect(upper.direct.status).toBe(404);
    // Static segments win over parameters, as in Next.js: /agents/chat is the agent "chat".
    const agent = await both("GET", "/agents/chat", admin);
    expect(agent.direct.status).toBe(404);
    expect(agent.direct.body).toMatchObject({ code: "agent_not_found" });
    expect(differences, differences.join("\n")).toEqual([]);
  });

  it("logs each request once with the same route and status, and counts chats alike", async () => {
    const linesOf = (server: RunningServer) => {
      const byId = new Map<string, { route: string; status: number }[]>();
      for (const line of server.output().split("\n")) {
        if (!line.includes('"msg":"request"')) continue;
        const entry = JSON.parse(line) as { request_id: string; route: string; status: number };
        const list = byId.get(entry.request_id) ?? [];
        list.push({ route: entry.route, status: entry.status });
        byId.set(entry.request_id, list);
      }
      return byId;
    };
    expect(routed.length).toBeGreaterThan(50);
    // Request lines are written in batches, within 100 ms (server/observability/log-stream.ts).
    const [a, b] = await vi.waitFor(
      () => {
        const found = [linesOf(direct), linesOf(viaNext)] as const;
        for (const lines of found)
          for (const { requestId } of routed)
            if (!lines.has(requestId)) throw new Error(`no line yet for ${requestId}`);
        return found;
      },
      { timeout: 5000 },
    );
    for (const { requestId, what } of routed) {
      expect(a.get(requestId), what).toHaveLength(1);
      expect(a.get(requestId), what).toEqual(b.get(requestId));
    }
    const chats = async (server: RunningServer) =>
      (await (await fetch(`${server.url}/metrics`, { headers: admin })).text())
        .split("\n")
        .filter(
          (line) =>
            line.startsWith("agent_chat_requests_total") ||
            line.startsWith("agent_chat_refusals_total"),
        )
        .sort();
    const counted = await chats(direct);
    expect(counted.length).toBeGreaterThan(0);
    expect(counted).toEqual(await chats(viaNext));
  });
});
