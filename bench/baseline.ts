import { createHmac, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import postgres from "postgres";
import { request } from "undici";
import { type Address, type Hex, verifyMessage } from "viem";
import { parseSiweMessage } from "viem/siwe";
import { chatStatements, type HistoryRows } from "./baseline-statements";

/**
 * The baseline: the same work as the service's REST paths, done by plain `node:http` and the
 * same `postgres` statements, with none of the framework layers (Next.js, tRPC, zod, drizzle).
 * The ratio service/baseline shows what those layers cost. Chat's statements are the service's
 * own texts (baseline-statements.ts, built once at start); the page query and the status
 * update's are written here, and the page query does not read the token rows that the
 * service's listing joins.
 */
/** A caller's thread, the caller known by the hash of its address as the service knows it. */
type Thread = { aid: string; addressHash: string; chatId: string };

/** The agent's fields a model call reads, from the opening's row. */
type AgentFields = {
  name: string;
  prompt: string | null;
  model: string | null;
  temperature: number | null;
};

/** CHAT_HISTORY_MESSAGES' default: the messages of history the opening reads. */
const HISTORY_MESSAGES = 20;

export async function startBaseline(
  databaseUrl: string,
  options: { llm?: BaselineLlm } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const sql = postgres(databaseUrl, { max: 20, onnotice: () => {} });
  const llm = options.llm;
  const callerKey = randomBytes(32);

  const health = async () => {
    await sql`SELECT 1`;
    return { status: "healthy", database: "ok" };
  };

  const agentsPage = async (after: string | null) =>
    sql`
      SELECT a.*, q.* FROM agents a JOIN agent_quotas q ON q.aid = a.aid
      WHERE ${after === null ? sql`true` : sql`a.aid > ${after}`}
      ORDER BY a.aid LIMIT 101`;

  const statements = chatStatements(sql);

  /**
   * What comes before the model call: the service's opening statement (server/chat), for an
   * anonymous caller. Its row (the agent and the quota as counted are read from it only where
   * they are used), the reservation and the history (newest first, as boundedHistory cuts it),
   * or undefined when it was refused.
   */
  const beginChat = async (thread: Thread) => {
    const now = new Date();
    const row = await statements.open(thread, now, HISTORY_MESSAGES);
    const reservationId = row?.get("reservationId");
    if (!row || reservationId === null || reservationId === undefined) return undefined;
    const history = (row.get("history") as HistoryRows)
      .map(([role, content]) => ({ role, content }))
      .reverse();
    return { row, history, reservationId: Number(reservationId), askedAt: now };
  };
  type Begun = NonNullable<Awaited<ReturnType<typeof beginChat>>>;

  /**
   * The service's store statement (server/threads), guarded by the chat's reservation: the
   * exchange stored, its tokens and hour of usage counted, only if the reservation was still
   * there to delete. Tokens as the echo provider estimates them.
   */
  const storeExchange = (
    thread: Thread,
    { reservationId, askedAt }: Begun,
    model: string,
    q: string,
    reply: string,
    answeredAt: Date,
  ) =>
    statements.store(
      {
        aid: thread.aid,
        caller: `addr:${thread.addressHash}`,
        chatId: thread.chatId,
        question: q,
        reply,
        model,
        usage: {
          input_tokens: Math.ceil(q.length / 4),
          output_tokens: Math.ceil(reply.length / 4),
          estimated: true,
        },
        toolCalls: [],
        askedAt,
        answeredAt,
      },
      reservationId,
    );

  /** Chat with the built-in echo model: the reply is made in the process. */
  const chat = async (thread: Thread, q: string) => {
    const begun = await beginChat(thread);
    if (!begun) return undefined;
    const { history, askedAt } = begun;
    const reply = `echo: ${q}${history.length > 0 ? ` (after ${history.length} earlier messages)` : ""}`;
    const model = (begun.row.get("agent.model") as string | null) ?? "echo";
    await storeExchange(thread, begun, model, q, reply, askedAt);
    return reply;
  };

  /**
   * Chat with a model endpoint: the same statements around one POST /chat/completions with the
   * body the service sends (model, system prompt + history + question, max_tokens, temperature
   * when set; for a stream, stream_options.include_usage), by undici's `request`, the client the
   * service uses: a floor that asked the model with a heavier client would flatter the service.
   * JSON (or text) waits for the whole reply; a stream is relayed with one `event: delta` per
   * network read of the upstream body.
   */
  const modelChat = async (
    model: BaselineLlm,
    thread: Thread,
    q: string,
    format: "json" | "text" | "sse",
    res: ServerResponse,
  ) => {
    const { aid, chatId } = thread;
    const begun = await beginChat(thread);
    if (!begun) {
      res.writeHead(429).end();
      return;
    }
    const agent = begun.row.object("agent") as AgentFields;
    const quota = begun.row.get("quota");
    const { history } = begun;
    const stream = format === "sse";
    // The client's going away ends the model call, as in the service.
    const abort = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) abort.abort();
    });
    const upstreamModel = agent.model ?? model.defaultModel;
    const store = (reply: string) =>
      storeExchange(thread, begun, upstreamModel, q, reply, new Date());
    const upstreamRequest = {
      method: "POST" as const,
      headers: { authorization: `Bearer ${model.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: upstreamModel,
        messages: [
          {
            role: "system",
            content: agent.prompt
              ? `You are ${agent.name}.\n\n${agent.prompt}`
              : `You are ${agent.name}.`,
          },
          ...boundedHistory(history),
          { role: "user", content: q },
        ],
        max_tokens: model.maxOutputTokens,
        ...(agent.temperature === null ? {} : { temperature: agent.temperature }),
        ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      }),
      signal: abort.signal,
    };
    const done = (reply: string) => ({ aid, chat_id: chatId, reply, quota });

    if (!stream) {
      const upstream = await request(`${model.baseUrl}/chat/completions`, upstreamRequest);
      if (upstream.statusCode !== 200) {
        await upstream.body.dump();
        res.writeHead(502).end();
        return;
      }
      const completion = (await upstream.body.json()) as {
        choices: { message: { content: string | null } }[];
      };
      const reply = completion.choices[0]?.message.content ?? "";
      await store(reply);
      if (format === "text") res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      else res.writeHead(200, { "content-type": "application/json" });
      res.end(format === "text" ? reply : JSON.stringify(done(reply)));
      return;
    }

    const event = (name: string, data: unknown) =>
      `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
    });
    res.write(event("start", { aid, chat_id: chatId }));
    try {
      const upstream = await request(`${model.baseUrl}/chat/completions`, upstreamRequest);
      if (upstream.statusCode !== 200) {
        await upstream.body.dump();
        throw new Error(`upstream ${upstream.statusCode}`);
      }
      const decoder = new TextDecoder();
      let pending = "";
      let reply = "";
      for await (const chunk of upstream.body) {
        pending += decoder.decode(chunk as Buffer, { stream: true });
        // Whole events only; a partial one waits for the next read.
        const end = pending.lastIndexOf("\n\n");
        if (end === -1) continue;
        let text = "";
        for (const line of pending.slice(0, end).split("\n")) {
          if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
          const data = JSON.parse(line.slice(6)) as {
            choices?: { delta?: { content?: string | null } }[];
          };
          text += data.choices?.[0]?.delta?.content ?? "";
        }
        pending = pending.slice(end + 2);
        if (text) {
          reply += text;
          res.write(event("delta", { text }));
        }
      }
      await store(reply);
      res.end(event("done", done(reply)));
    } catch (error) {
      if (!res.destroyed) res.end(event("error", { status: 502, detail: String(error) }));
    }
  };

  /**
   * A worker's signed status update: parse the EIP-4361 message, verify the signature, then
   * spend the nonce, lock the deployment, change it and write its history in one transaction.
   */
  const statusUpdate = async (body: string) => {
    const input = JSON.parse(body) as { siwe_msg: string; signature: Hex; user_address: Address };
    const fields = parseSiweMessage(input.siwe_msg);
    if (!fields.address || !fields.nonce || !fields.statement) return undefined;
    const valid = await verifyMessage({
      address: fields.address,
      message: input.siwe_msg,
      signature: input.signature,
    });
    if (!valid) return undefined;
    const statement = JSON.parse(fields.statement) as {
      request_id: string;
      status: string;
      deployment_details?: postgres.JSONValue;
    };
    const { nonce, address } = fields;
    const now = new Date();
    return sql.begin(async (tx) => {
      const [spent] = await tx`
        UPDATE siwe_nonces SET used_at = ${now}
        WHERE nonce = ${nonce} AND address = ${address.toLowerCase()} AND used_at IS NULL
          AND expires_at > ${now}
        RETURNING nonce`;
      if (!spent) return undefined;
      const [current] = await tx`
        SELECT * FROM deployments WHERE request_id = ${statement.request_id} FOR UPDATE`;
      if (!current) return undefined;
      const [updated] = await tx`
        UPDATE deployments SET status = ${statement.status},
          deployment_details = deployment_details || ${tx.json(statement.deployment_details ?? {})},
          updated_at = ${now}
        WHERE id = ${current.id} RETURNING *`;
      await tx`
        INSERT INTO deployment_status_history (deployment_id, from_status, to_status,
          signer_address, nonce, deployment_details, created_at)
        VALUES (${current.id}, ${current.status}, ${statement.status}, ${address}, ${nonce},
          ${tx.json(statement.deployment_details ?? null)}, ${now})`;
      return updated;
    });
  };

  /**
   * An address's hash, made once per address as the service makes it (server/callers keeps
   * them): hashing it again on every request would be work the service does not do, and the
   * floor must be as lean as the statements allow.
   */
  const addressHashes = new Map<string, string>();
  const hashOf = (address: string) => {
    let hash = addressHashes.get(address);
    if (hash === undefined) {
      if (addressHashes.size >= 10_000) addressHashes.clear();
      hash = createHmac("sha256", callerKey).update(address).digest("hex").slice(0, 16);
      addressHashes.set(address, hash);
    }
    return hash;
  };

  /** The caller's thread, the caller known by the socket's address as the service knows it. */
  const threadOf = (req: IncomingMessage, aid: string, url: URL): Thread => ({
    aid: decodeURIComponent(aid),
    addressHash: hashOf(req.socket.remoteAddress ?? ""),
    chatId: url.searchParams.get("chat_id") ?? "default",
  });

  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://baseline");
      if (url.pathname === "/v1/deployments/worker/status" && req.method === "POST") {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const updated = await statusUpdate(Buffer.concat(chunks).toString("utf8"));
        if (updated === undefined) res.writeHead(400).end();
        else
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(updated));
        return;
      }
      if (url.pathname === "/health" && req.method !== "GET") {
        res
          .writeHead(405, { "content-type": "application/problem+json", allow: "GET" })
          .end(JSON.stringify({ status: 405, detail: `${req.method} is not supported here.` }));
        return;
      }
      if (url.pathname === "/health") {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify(await health()));
        return;
      }
      if (url.pathname === "/agents") {
        const rows = await agentsPage(url.searchParams.get("after"));
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ agents: rows.slice(0, 100) }));
        return;
      }
      const match = /^\/([^/]+)\/chat$/.exec(url.pathname);
      if (match && llm) {
        // As the service negotiates, simplified: a stream or JSON when asked for, else text.
        const accept = req.headers.accept ?? "";
        await modelChat(
          llm,
          threadOf(req, match[1] as string, url),
          url.searchParams.get("q") ?? "",
          accept.includes("text/event-stream")
            ? "sse"
            : accept.includes("application/json")
              ? "json"
              : "text",
          res,
        );
        return;
      }
      if (match) {
        const reply = await chat(
          threadOf(req, match[1] as string, url),
          url.searchParams.get("q") ?? "",
        );
        if (reply === undefined) res.writeHead(429).end();
        else res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(reply);
        return;
      }
      res.writeHead(404).end();
    } catch (error) {
      if (res.headersSent) res.destroy();
      else res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sql.end({ timeout: 5 });
    },
  };
}

/** The model endpoint of the baseline's model chats, as the service's LLM_* settings give it. */
export type BaselineLlm = {
  /** Ends in /v1, as LLM_BASE_URL. */
  baseUrl: string;
  apiKey: string;
  /** For agents whose model is null (LLM_MODEL's default). */
  defaultModel: string;
  /** max_tokens (LLM_MAX_OUTPUT_TOKENS's default). */
  maxOutputTokens: number;
};

/**
 * The history read newest first, returned oldest first and cut as the service cuts it (at most
 * CHAT_HISTORY_MAX_CHARS' default of 24,000 characters, the oldest dropped first).
 */
function boundedHistory(newestFirst: { role: string; content: string }[], maxChars = 24_000) {
  const kept: { role: string; content: string }[] = [];
  let chars = 0;
  for (const { role, content } of newestFirst) {
    chars += content.length;
    if (chars > maxChars) break;
    kept.push({ role, content });
  }
  return kept.reverse();
}
