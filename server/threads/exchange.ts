import { type Placeholder, type SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import type { StoredToolCall } from "@/db/schema";
import { storableJsonText, storableText } from "@/server/kit/text";
import type { Usage } from "@/server/model-call";
import { type Accounted, accountedPeriods, settleUsage } from "@/server/quota";
import type { ThreadRef } from "./history";

// The exchange store: a question and its reply written to their thread in one statement that
// also settles the use the chat or autonomous run held (server/quota).

export type Exchange = ThreadRef & {
  question: string;
  reply: string;
  /** The model that wrote the reply, whose price (if it has one) prices it. */
  model: string;
  usage: Usage;
  toolCalls: StoredToolCall[];
  askedAt: Date;
  answeredAt: Date;
};

/**
 * A write that returns rows (a chat's reservation deleted, a run marked succeeded, each only
 * while still held); the exchange is stored in the same statement only if it returned one. A
 * message's guard returns `held_tokens`, the tokens its reservation held, which settling releases.
 * Its values are placeholders, so the statement is prepared once per `key` and kind.
 */
export type StoreGuard = {
  key: string;
  /** Its values as `sql.placeholder(name)`: its own (`guard…`) or the exchange's (storeValues). */
  build: () => SQL;
  /** A write after the guard in the same statement: an autonomous run's webhook event. */
  effects?: () => SQL;
  values: Record<string, unknown>;
};

/**
 * A row a way in keeps beside the exchange (a kept response, an A2A task), written by the same
 * statement and only if the exchange is stored: no statement more a chat, whichever way it came
 * in. Its SQL (`INSERT … SELECT … FROM thread`) takes its values as placeholders named `kept…`,
 * so it is prepared once per `key`; it may also use the exchange's (`aid`, `caller`).
 */
export type KeptRow = {
  key: string;
  build: (p: (name: string) => Placeholder) => SQL;
  values: Record<string, unknown>;
};

/**
 * Writes a question and its reply in one statement, only if `guard` returned a row, settling the
 * use. Text is made storable once more here, so nothing reaching a row another way can fail it.
 */
export async function storeExchange(
  db: Db,
  exchange: Exchange,
  guard: StoreGuard,
  kind: Accounted["kind"],
  kept?: KeptRow,
): Promise<{ stored: boolean; cost: number | null }> {
  const values = storeValues(exchange, guard);
  const [row] = await storeStatement(db, kind, guard, kept).execute(
    kept ? { ...values, ...kept.values } : values,
  );
  return {
    stored: (row?.stored ?? 0) > 0,
    cost: row?.cost === null || row?.cost === undefined ? null : Number(row.cost),
  };
}

/** Exported with `storeQuery` for the benchmark's baseline (bench/baseline.ts). */
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

/** Built once per database handle, guard and kept row, not by drizzle on every chat. */
function storeStatement(db: Db, kind: Accounted["kind"], guard: StoreGuard, kept?: KeptRow) {
  const key = kept ? `${kind}_${guard.key}_${kept.key}` : `${kind}_${guard.key}`;
  return prepared(db, `store-${key}`, () =>
    storeQuery(db, kind, guard, kept).prepare(`store_${key}`),
  );
}

/** Exported with `storeValues` for the benchmark's baseline, which takes its text. */
export function storeQuery(
  db: Db,
  kind: Accounted["kind"],
  guard: Omit<StoreGuard, "values">,
  kept?: Omit<KeptRow, "values">,
) {
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
  // The store takes no quota row (the next chat's reserve waits on it): tokens go to
  // agent_token_usage, taken in the same order by every store; the reserve only reads it.
  const settle = settleUsage(accounted);
  return db
    .with(
      clause("price", settle.price),
      clause("guard", guard.build()),
      ...(guard.effects ? [clause("guard_effects", guard.effects())] : []),
      thread,
      messages,
      ...(kept ? [clause("kept", kept.build(p))] : []),
      clause("settle_tokens", settle.tokens),
      clause("settle_usage", settle.usage),
    )
    .select({
      stored: sql<number>`count(*)::int`.mapWith(Number),
      cost: sql<number | string | null>`(SELECT cost FROM price)::float8`,
    })
    .from(thread);
}
