import { createHash } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import packageJson from "@/package.json" with { type: "json" };
import type { ToolsConfig } from "@/server/frame/config";
import { log } from "@/server/observability";
import { httpStatusOf, isBroken } from "./failures";
import { callBound, guardedFetch, ToolRequestRefused, ToolTimeoutError } from "./requests";

export type McpTarget = { url: string; headers: Record<string, string> };

const TOOLS_TTL_MS = 60_000;
const IDLE_MS = 5 * 60_000;
const MAX_CONNECTIONS = 256;

// Why a session was closed for an oversized response: what its requests failed for, rather
// than the closed connection they see.
const oversized = new WeakMap<Client, ToolRequestRefused>();

type Entry = {
  key: string;
  target: McpTarget;
  client?: Promise<Client>;
  tools?: { list: Tool[]; at: number };
  inFlight: number;
  lastUsedAt: number;
};

/**
 * The process's MCP sessions: one per server URL and set of headers, shared by every chat and
 * run that names it, closed when idle or broken. An abandoned call is cancelled at the server.
 */
export class McpPool {
  private readonly entries = new Map<string, Entry>();
  /** Started with the first connection, so a pool never used holds no timer. */
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly config: ToolsConfig) {}

  /**
   * The server's tools, from a recent listing unless `fresh`. An unreachable server's last list is
   * used, so its calls fail as tool errors the model is told of rather than the tools vanishing.
   */
  async listTools(target: McpTarget, signal: AbortSignal, fresh = false): Promise<Tool[]> {
    const entry = this.entry(target);
    const known = entry.tools;
    if (!fresh && known && Date.now() - known.at < TOOLS_TTL_MS) return known.list;
    try {
      const list = await this.use(entry, signal, async (client, callSignal) => {
        const tools: Tool[] = [];
        let cursor: string | undefined;
        // A server may page its list; a few pages at most, so a hostile one cannot loop us.
        for (let page = 0; page < 10; page++) {
          const result = await client.listTools(cursor ? { cursor } : undefined, {
            signal: callSignal,
            timeout: this.config.timeoutMs,
          });
          tools.push(...result.tools);
          cursor = result.nextCursor;
          if (!cursor) break;
        }
        return tools;
      });
      entry.tools = { list, at: Date.now() };
      return list;
    } catch (error) {
      if (fresh || !known || signal.aborted) throw error;
      return known.list;
    }
  }

  async callTool(
    target: McpTarget,
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    return this.use(
      this.entry(target),
      signal,
      (client, callSignal) =>
        client.callTool({ name, arguments: args }, undefined, {
          signal: callSignal,
          timeout: this.config.timeoutMs,
        }) as Promise<CallToolResult>,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((entry) => closeEntry(entry, true)));
  }

  get size(): number {
    return this.entries.size;
  }

  private entry(target: McpTarget): Entry {
    const key = entryKey(target);
    let entry = this.entries.get(key);
    if (!entry) {
      if (this.entries.size >= MAX_CONNECTIONS) this.closeOldestIdle();
      entry = { key, target, inFlight: 0, lastUsedAt: Date.now() };
      this.entries.set(key, entry);
      if (!this.sweeper) {
        this.sweeper = setInterval(() => this.closeIdle(Date.now() - IDLE_MS), 60_000);
        this.sweeper.unref();
      }
    }
    return entry;
  }

  /**
   * Runs `work` on the entry's session. A session the server no longer knows (404, after its
   * restart) is opened again once; a broken connection is dropped for the next call to reopen.
   */
  private async use<T>(
    entry: Entry,
    signal: AbortSignal,
    work: (client: Client, callSignal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    if (this.closed) throw new ToolRequestRefused("was not called: the service is shutting down.");
    const bound = callBound(this.config.timeoutMs, signal);
    entry.inFlight++;
    try {
      for (let attempt = 0; ; attempt++) {
        const connecting = this.connect(entry);
        let client: Client | undefined;
        try {
          client = await bound.race(connecting);
          return await work(client, bound.signal);
        } catch (error) {
          const expired = httpStatusOf(error) === 404;
          if ((expired || isBroken(error)) && entry.client === connecting) disconnect(entry);
          if (bound.timedOut())
            throw new ToolTimeoutError(`No answer within ${this.config.timeoutMs} ms.`);
          const refusal = client && oversized.get(client);
          if (refusal) throw refusal;
          if (expired && attempt === 0 && !signal.aborted) continue;
          throw error;
        }
      }
    } finally {
      bound.clear();
      entry.inFlight--;
      entry.lastUsedAt = Date.now();
    }
  }

  /** The entry's client, connecting it first if need be (one attempt shared by its callers). */
  private connect(entry: Entry): Promise<Client> {
    if (entry.client) return entry.client;
    const client = new Client({ name: "agent-service", version: packageJson.version });
    // Closing the session ends at once every request waiting on it, the one whose answer was
    // cut among them (it would otherwise wait for the timeout).
    const onOversize = (refusal: ToolRequestRefused) => {
      oversized.set(client, refusal);
      void client.close().catch(() => {});
    };
    const guarded = guardedFetch(this.config, onOversize);
    const transport = new StreamableHTTPClientTransport(new URL(entry.target.url), {
      requestInit: { headers: entry.target.headers },
      fetch: guarded,
      // A dropped notification stream is not reopened: calls do not need it.
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 1000,
        maxReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 1,
      },
    });
    client.onerror = (error) =>
      log.debug({ err: error, mcp: entry.target.url }, "MCP client error");
    let connecting: Promise<Client> | undefined;
    client.onclose = () => {
      if (entry.client === connecting) entry.client = undefined;
      void guarded.close();
    };
    // Not bounded by a caller's signal: others may share it. The timeout bounds it.
    connecting = client.connect(transport, { timeout: this.config.timeoutMs }).then(
      () => client,
      (error) => Promise.reject(oversized.get(client) ?? error),
    );
    entry.client = connecting;
    connecting.catch(() => {
      if (entry.client === connecting) entry.client = undefined;
      void client.close().catch(() => {});
    });
    return connecting;
  }

  private drop(entry: Entry): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    disconnect(entry);
  }

  private closeIdle(before: number): void {
    for (const entry of this.entries.values())
      if (entry.inFlight === 0 && entry.lastUsedAt < before) this.drop(entry);
  }

  private closeOldestIdle(): void {
    let oldest: Entry | undefined;
    for (const entry of this.entries.values())
      if (entry.inFlight === 0 && (!oldest || entry.lastUsedAt < oldest.lastUsedAt)) oldest = entry;
    if (oldest) this.drop(oldest);
  }
}

/** One connection per URL and headers; the key holds a digest, not the headers' values. */
function entryKey(target: McpTarget): string {
  const headers = Object.entries(target.headers)
    .map(([name, value]) => `${name.toLowerCase()}:${value}`)
    .sort()
    .join("\n");
  return `${target.url} ${createHash("sha256").update(headers).digest("base64url")}`;
}

function disconnect(entry: Entry): void {
  const closing = { ...entry };
  entry.client = undefined;
  void closeEntry(closing, false);
}

async function closeEntry(entry: Pick<Entry, "client">, endSession: boolean): Promise<void> {
  const client = await entry.client?.catch(() => undefined);
  if (!client) return;
  const transport = client.transport as StreamableHTTPClientTransport | undefined;
  // Ending the session tells the server it may free what it keeps for us; bounded, as a
  // server that does not answer must not hold up a shutdown.
  if (endSession && transport?.sessionId)
    await Promise.race([
      transport.terminateSession().catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, 1000).unref()),
    ]);
  await client.close().catch(() => {});
}
