import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/**
 * A real MCP server on loopback, built with @modelcontextprotocol/sdk and served over Streamable
 * HTTP with sessions, as a remote MCP server is. Its tools:
 *
 * - `add` {a, b}: the sum, as text;
 * - `lookup` {key}: `value-of-<key>` (for chains: the model looks one thing up, then another);
 * - `fail`: an error result (`isError`), as a tool reports its own failure;
 * - `slow` {ms}: answers after `ms` (stops early, and says so in `cancelled`, when the client
 *   cancels);
 * - `big` {chars}: `chars` x's;
 * - `delete_everything`: what an agent must never get to call unless allowed (it is recorded).
 *
 * Started with `unstorable`, it also has what PostgreSQL cannot store as it comes (see
 * UNSTORABLE_RESULT): `unstorable` {as: "result" | "error"}, that text as its result or as its
 * error; and a tool whose own name holds a NUL and a lone surrogate (UNSTORABLE_TOOL_NAME).
 *
 * Every tool call and the headers of every request are kept for assertions.
 */
export type TestMcpServer = {
  /** The endpoint (ends in /mcp). */
  url: string;
  /** Every tools/call it received: tool name and arguments. */
  calls: { name: string; arguments: Record<string, unknown> }[];
  /** Calls of `slow` that the client cancelled before they finished. */
  cancelled: number;
  /** The headers of every HTTP request, in order. */
  headers: IncomingHttpHeaders[];
  /** Sessions opened since the start. */
  sessionsOpened(): number;
  /** Sessions the client ended (DELETE). */
  sessionsEnded(): number;
  /** Forgets every session, as a restarted server does: the next request of each gets 404. */
  forgetSessions(): void;
  close(): Promise<void>;
};

/**
 * A NUL, a lone high surrogate, a lone low one, and an emoji (a surrogate pair) that straddles
 * the 10,000th character (MCP_RESULT_MAX_CHARS's default cut) once the NUL is gone.
 */
export const UNSTORABLE_RESULT = `a\u0000b\ud800c\udc00${"x".repeat(9994)}😀!`;
export const UNSTORABLE_TOOL_NAME = "odd\u0000name\ud800";

function toolServer(
  state: { calls: TestMcpServer["calls"]; cancelled: number },
  unstorable: boolean,
): McpServer {
  const server = new McpServer({ name: "test-tools", version: "1.0.0" });
  const record = (name: string, args: Record<string, unknown>) =>
    state.calls.push({ name, arguments: args });
  const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
  server.registerTool(
    "add",
    {
      description: "Adds two numbers.",
      inputSchema: { a: z.number(), b: z.number() },
    },
    async (args) => {
      record("add", args);
      return text(String(args.a + args.b));
    },
  );
  server.registerTool(
    "lookup",
    { description: "Looks a key up.", inputSchema: { key: z.string() } },
    async (args) => {
      record("lookup", args);
      return text(`value-of-${args.key}`);
    },
  );
  server.registerTool("fail", { description: "Always fails." }, async () => {
    record("fail", {});
    return { ...text("the tool failed on purpose"), isError: true };
  });
  server.registerTool(
    "slow",
    { description: "Answers after ms milliseconds.", inputSchema: { ms: z.number() } },
    async (args, extra) => {
      record("slow", args);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, args.ms);
        extra.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          state.cancelled++;
          resolve();
        });
      });
      return text("slept");
    },
  );
  server.registerTool(
    "big",
    { description: "Answers with chars x's.", inputSchema: { chars: z.number() } },
    async (args) => {
      record("big", args);
      return text("x".repeat(args.chars));
    },
  );
  server.registerTool("delete_everything", { description: "Deletes everything." }, async () => {
    record("delete_everything", {});
    return text("deleted everything");
  });
  if (unstorable) {
    server.registerTool(
      "unstorable",
      {
        description: "Answers with text the database cannot store as it is.",
        inputSchema: { as: z.enum(["result", "error"]) },
      },
      async (args) => {
        record("unstorable", args);
        return { ...text(UNSTORABLE_RESULT), isError: args.as === "error" };
      },
    );
    server.registerTool(UNSTORABLE_TOOL_NAME, { description: "Oddly named." }, async () => {
      record(UNSTORABLE_TOOL_NAME, {});
      return text("named oddly");
    });
  }
  return server;
}

export async function startMcpServer(
  options: { unstorable?: boolean } = {},
): Promise<TestMcpServer> {
  const state = { calls: [] as TestMcpServer["calls"], cancelled: 0 };
  const headers: IncomingHttpHeaders[] = [];
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let opened = 0;
  let ended = 0;

  const http: Server = createServer(async (req, res) => {
    headers.push(req.headers);
    if (!req.url?.startsWith("/mcp")) {
      res.writeHead(404).end();
      return;
    }
    const sessionId = req.headers["mcp-session-id"];
    const known = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
    let body: unknown;
    if (req.method === "POST") {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    }
    if (known) {
      if (req.method === "DELETE") ended++;
      await known.handleRequest(req, res, body);
      return;
    }
    if (req.method === "POST" && !sessionId && isInitializeRequest(body)) {
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          opened++;
          transports.set(id, transport);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId);
      };
      await toolServer(state, options.unstorable === true).connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    // An unknown session (expired, or the server restarted), as the specification says: 404.
    res.writeHead(sessionId ? 404 : 400, { "content-type": "application/json" }).end(
      JSON.stringify({
        jsonrpc: "2.0",
        error: { code: -32000, message: "No valid session" },
        id: null,
      }),
    );
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls: state.calls,
    get cancelled() {
      return state.cancelled;
    },
    headers,
    sessionsOpened: () => opened,
    sessionsEnded: () => ended,
    forgetSessions: () => {
      for (const transport of transports.values()) void transport.close();
      transports.clear();
    },
    close: async () => {
      for (const transport of transports.values()) await transport.close().catch(() => {});
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
