import { type SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import type { StoredToolCall } from "@/db/schema";
import { storableJsonText, storableText } from "@/server/kit/text";
import type { Usage } from "@/server/model-call";
import { type Accounted, accountedPeriods, settleUsage } from "@/server/quota";
import type { ThreadRef } from "./history";

/**
 * The exchange store: a question and its reply written to their thread in one statement, which
 * also settles the use that the chat or run held (server/quota), for chat and autonomous runs
 * alike.
 */

export type Exchange = ThreadRef & {
  question: string;
  reply: string;
  /** The model that wrote the reply, whose price (if it has one) prices it. */
  model: string;
  /** The tokens of the call that wrote the reply; stored on the reply's row. */
  usage: Usage;
  /** The tool calls made before the reply, stored on its row (null column when none). */
  toolCalls: StoredToolCall[];
  askedAt: Date;
  answeredAt: Date;
};

/**
 * What a store is guarded by: a write that returns rows (a chat's reservation deleted, an
 * autonomous run marked succeeded, each only while it is still held; it may read the reply's
 * cost from the WITH clause `price`). The exchange is stored only if it returned one, in the
 * same statement, so all of it is stored or none. The statement is built once per `key` and
 * kind and prepared: the guard's values are placeholders, filled from `values`.
 */
export type StoreGuard = {
  /** Names the guard's shape (and so the prepared statement's). */
  key: string;
  /**
   * The guard's SQL, its values as `sql.placeholder(name)`: its own named `guard…`, or the
   * exchange's (`reply`, `toolCalls` as JSON, `answeredAt`, `inputTokens`, `outputTokens`,
   * `estimated`; see storeExchange).
   */
  build: () => SQL;
  /**
   * A write that follows from the guard (it may read the rows `guard` returned), in the same
   * statement: an autonomous run's webhook event. Its values are placeholders too.
   */
  effects?: () => SQL;
  values: Record<string, unknown>;
};

/**
 * Writes a question and its reply to their thread in one statement (atomic by itself, so no
 * transaction and its two extra round trips): the thread is created or counted up, both
 * messages inserted, and the use settled: the reply priced and counted in the agent's tokens
 * and usage (`settleUsage` of server/quota); the foreign key to the thread is checked at the end
 * of the statement. Stored only if `guard` returned a row (a chat's guard is quota's
 * `settleMessage`). `kind` says what the reply counts as in usage: a
 * chat's message or an autonomous run. Returns whether it was stored, and the reply's cost
 * (null: unpriced). What a model or a tool sent is made storable where it enters the service
 * (providers, tools), so that clients are sent what is stored; it is made so here once more,
 * cheaply (clean text is not copied), so that nothing reaching a row another way can fail the
 * statement.
 */
export async function storeExchange(
  db: Db,
  exchange: Exchange,
  guard: StoreGuard,
  kind: Accounted["kind"],
): Promise<{ stored: boolean; cost: number | null }> {
  const [row] = await storeStatement(db, kind, guard).execute(storeValues(exchange, guard));
  return {
    stored: (row?.stored ?? 0) > 0,
    cost: row?.cost === null || row?.cost === undefined ? null : Number(row.cost),
  };
}

/**
 * The values of the store statement's placeholders (`storeQuery`) for `exchange` and its guard.
 * Exported with `storeQuery` for the benchmark's baseline (bench/baseline.ts).
 */
export function storeValues(
  exchange: Exchange,
  guard: Pick<StoreGuard, "values">,
): Record<string, unknown> {
  const { aid, caller, chatId, question, reply, usage } = exchange;
  return {
    ...guard.values,
    aid,
    caller,
    chatId,
    question,
    reply: storableText(reply),
    model: exchange.model,
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    estimated: usage.estimated,
    toolCalls:
      exchange.toolCalls.length > 0 ? storableJsonText(JSON.stringify(exchange.toolCalls)) : null,
    askedAt: exchange.askedAt.toISOString(),
    answeredAt: exchange.answeredAt.toISOString(),
    ...accountedPeriods(exchange.answeredAt),
  };
}

/**
 * The store statement of `kind` guarded by `guard`, built once per database handle: drizzle
 * building it on every chat was most of drizzle's share of a chat's CPU (BENCHMARKS.md).
 */
function storeStatement(db: Db, kind: Accounted["kind"], guard: StoreGuard) {
  return prepared(db, `store-${kind}-${guard.key}`, () =>
    storeQuery(db, kind, guard).prepare(`store_${kind}_${guard.key}`),
  );
}

/**
 * The store statement as a query, its values placeholders (`storeValues` fills them). Built once
 * per database handle and guard by `storeStatement`; the benchmark's baseline takes its text.
 */
export function storeQuery(db: Db, kind: Accounted["kind"], guard: Omit<StoreGuard, "values">) {
  const p = (name: string) => sql.placeholder(name);
  const [aid, caller, chatId] = [p("aid"), p("caller"), p("chatId")];
  const [askedAt, answeredAt] = [p("askedAt"), p("answeredAt")];
  const accounted: Accounted = {
    aid,
    kind,
    model: p("model"),
    inputTokens: p("inputTokens"),
    outputTokens: p("outputTokens"),
    day: p("day"),
    month: p("month"),
    hour: p("hour"),
  };
  const clause = (name: string, query: SQL) => db.$with(name, {}).as(query);
  const thread = db.$with("thread", { aid: sql<string>`aid` }).as(sql`
      INSERT INTO chat_threads (aid, caller, chat_id, message_count, created_at, last_message_at)
      SELECT ${aid}::text, ${caller}::text, ${chatId}::text, 2, ${askedAt}::timestamptz,
        ${answeredAt}::timestamptz
      WHERE EXISTS (SELECT 1 FROM guard)
      ON CONFLICT (aid, caller, chat_id) DO UPDATE
        SET message_count = chat_threads.message_count + 2, last_message_at = EXCLUDED.last_message_at
      RETURNING aid`);
  const messages = clause(
    "messages",
    sql`
      INSERT INTO chat_messages (aid, caller, chat_id, role, content, created_at,
        input_tokens, output_tokens, tokens_estimated, cost, tool_calls)
      SELECT ${aid}::text, ${caller}::text, ${chatId}::text, m.role, m.content,
        m.created_at::timestamptz, m.input_tokens, m.output_tokens, m.tokens_estimated, m.cost,
        m.tool_calls
      FROM thread, (VALUES
          (1, 'user', ${p("question")}::text, ${askedAt}::text, NULL::integer, NULL::integer,
            NULL::boolean, NULL::numeric, NULL::jsonb),
          (2, 'assistant', ${p("reply")}::text, ${answeredAt}::text,
            ${accounted.inputTokens}::integer, ${accounted.outputTokens}::integer,
            ${p("estimated")}::boolean, (SELECT cost FROM price), ${p("toolCalls")}::jsonb))
        AS m(position, role, content, created_at, input_tokens, output_tokens, tokens_estimated,
          cost, tool_calls)
      -- The question gets the lower id: history and listings are ordered by id.
      ORDER BY m.position`,
  );
  // The store takes no quota row (the next chat's reserve waits on it): a reply's tokens go to
  // agent_token_usage (server/quota). Every store takes its rows in the same order, and the
  // reserve, which takes the quota row, only reads agent_token_usage.
  const settle = settleUsage(accounted);
  return db
    .with(
      clause("price", settle.price),
      clause("guard", guard.build()),
      ...(guard.effects ? [clause("guard_effects", guard.effects())] : []),
      thread,
      messages,
      clause("settle_tokens", settle.tokens),
      clause("settle_usage", settle.usage),
    )
    .select({
      stored: sql<number>`count(*)::int`.mapWith(Number),
      cost: sql<number | string | null>`(SELECT cost FROM price)::float8`,
    })
    .from(thread);
}
