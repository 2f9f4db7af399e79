import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import postgres from "postgres";
import { type Address, type Hex, verifyMessage } from "viem";
import { parseSiweMessage } from "viem/siwe";

/**
 * The baseline: the same work as the service's REST paths, done by plain `node:http` and the
 * same `postgres` statements, with none of the framework layers (Next.js, tRPC, zod, drizzle).
 * The ratio service/baseline shows what those layers cost.
 */
export async function startBaseline(
  databaseUrl: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const sql = postgres(databaseUrl, { max: 20, onnotice: () => {} });

  const health = async () => {
    await sql`SELECT 1`;
    return { status: "healthy", database: "ok" };
  };

  const agentsPage = async (after: string | null) =>
    sql`
      SELECT a.*, q.* FROM agents a JOIN agent_quotas q ON q.aid = a.aid
      WHERE ${after === null ? sql`true` : sql`a.aid > ${after}`}
      ORDER BY a.aid LIMIT 101`;

  /**
   * The agent (its model, prompt and temperature shape the model call), then the three message
   * counters consumed (lazy UTC resets), the history read, and the exchange stored.
   */
  const chat = async (aid: string, chatId: string, q: string) => {
    const [agent] = await sql`SELECT * FROM agents WHERE aid = ${aid}`;
    if (!agent) return undefined;
    const now = new Date();
    const day = now.toISOString().slice(0, 10);
    const month = `${day.slice(0, 7)}-01`;
    const [quota] = await sql`
      UPDATE agent_quotas SET
        message_count_total = message_count_total + 1,
        message_count_monthly = (CASE WHEN message_month = ${month} THEN message_count_monthly ELSE 0 END) + 1,
        message_month = ${month},
        message_count_daily = (CASE WHEN message_day = ${day} THEN message_count_daily ELSE 0 END) + 1,
        message_day = ${day},
        last_message_at = ${now}
      WHERE aid = ${aid}
        AND (message_limit_total IS NULL OR message_count_total < message_limit_total)
        AND (message_limit_monthly IS NULL OR (CASE WHEN message_month = ${month} THEN message_count_monthly ELSE 0 END) < message_limit_monthly)
        AND (message_limit_daily IS NULL OR (CASE WHEN message_day = ${day} THEN message_count_daily ELSE 0 END) < message_limit_daily)
      RETURNING *`;
    if (!quota) return undefined;
    const history = await sql`
      SELECT role, content FROM chat_messages WHERE aid = ${aid} AND chat_id = ${chatId} ORDER BY id DESC LIMIT 20`;
    const reply = `echo: ${q}${history.length > 0 ? ` (after ${history.length} earlier messages)` : ""}`;
    // The same single statement as the service (server/chat/chat.ts, storeExchange).
    await sql`
      WITH thread AS (
        INSERT INTO chat_threads (aid, chat_id, message_count, created_at, last_message_at)
        VALUES (${aid}, ${chatId}, 2, ${now}, ${now})
        ON CONFLICT (aid, chat_id) DO UPDATE
          SET message_count = chat_threads.message_count + 2, last_message_at = EXCLUDED.last_message_at
        RETURNING aid
      )
      INSERT INTO chat_messages (aid, chat_id, role, content, created_at)
      SELECT ${aid}, ${chatId}, m.role, m.content, ${now}::timestamptz
      FROM thread, (VALUES (1, 'user', ${q}), (2, 'assistant', ${reply})) AS m(position, role, content)
      ORDER BY m.position`;
    return reply;
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
      if (match) {
        const reply = await chat(
          decodeURIComponent(match[1] as string),
          url.searchParams.get("chat_id") ?? "default",
          url.searchParams.get("q") ?? "",
        );
        if (reply === undefined) res.writeHead(429).end();
        else res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(reply);
        return;
      }
      res.writeHead(404).end();
    } catch (error) {
      res.writeHead(500).end(String(error));
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
