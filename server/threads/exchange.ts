import { type Placeholder, type SQL, sql } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import type { Db } from "@/db/client";
import { mayBeOneRowsDoing } from "@/db/failures";
import { prepared } from "@/db/prepared";
import type { StoredToolCall } from "@/db/schema";
import { type Batcher, batcher } from "@/server/kit/batches";
import { storableJsonText, storableText } from "@/server/kit/text";
import type { Usage } from "@/server/model-call";
import { type Accounted, accountedPeriods, settleUsage } from "@/server/quota";
import type { ThreadRef } from "./history";

// The exchange store: questions and their replies written to their threads in one statement that
// also settles the uses the chats or autonomous run held (server/quota).

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
 * A write over the rows the statement's `exchanges` (see storeQuery) name by `guard_id` that
 * returns, as `guard_id`, each it lets store (a chat's reservation deleted, a run marked
 * succeeded, each only while still held); the exchanges it returns none for are not stored. A
 * message's guard also returns `held_tokens`, the tokens its reservation held, which settling
 * releases. Its values are the exchanges', so the statement is prepared once per `key` and kind.
 */
export type StoreGuard = {
  key: string;
  build: () => SQL;
  /** A write after the guard in the same statement: an autonomous run's webhook event. */
  effects?: () => SQL;
  /** The row this exchange's guard takes: its `guard_id`. */
  id: number;
};

/**
 * A row a way in keeps beside the exchange (a kept response, an A2A task), written by the same
 * statement and only if the exchange is stored: no statement more a chat, whichever way it came
 * in. Its SQL (`INSERT … SELECT … FROM thread`, whose row has the exchange's `aid`, `caller` and
 * `chat_id`) takes its values as placeholders named `kept…`, so it is prepared once per `key`.
 */
export type KeptRow = {
  key: string;
  build: (p: (name: string) => Placeholder) => SQL;
  values: Record<string, unknown>;
};

type Stored = { stored: boolean; cost: number | null };

/**
 * Writes a question and its reply, only if `guard` returned a row, settling the use. A chat's
 * exchange without a kept row shares its statement with the others of the process that end at
 * the same time (server/kit/batches.ts). Text is made storable once more here, so nothing
 * reaching a row another way can fail it.
 */
export async function storeExchange(
  db: Db,
  exchange: Exchange,
  guard: StoreGuard,
  kind: Accounted["kind"],
  kept?: KeptRow,
): Promise<Stored> {
  if (kind === "message" && !kept && !guard.effects && !(db instanceof PgTransaction))
    return batchOf(db, guard).add({ exchange, guard });
  const [stored] = await storeExchanges(db, [{ exchange, guard }], kind, kept);
  return stored as Stored;
}

type Batched = { exchange: Exchange; guard: StoreGuard };

/** A process's chats store together: one statement and commit for all that end at once. */
const batches = new WeakMap<Db, Map<string, Batcher<Batched, Stored>>>();

function batchOf(db: Db, guard: StoreGuard): Batcher<Batched, Stored> {
  let byGuard = batches.get(db);
  if (!byGuard) {
    byGuard = new Map();
    batches.set(db, byGuard);
  }
  let batch = byGuard.get(guard.key);
  if (!batch) {
    batch = batcher({
      run: (items) => storeExchanges(db, items, "message"),
      // One statement counts in one hour.
      group: ({ exchange }) => accountedPeriods(exchange.answeredAt).hour,
      max: 32,
      inFlight: 1,
      alone: mayBeOneRowsDoing,
    });
    byGuard.set(guard.key, batch);
  }
  return batch;
}

/**
 * Stores `exchanges`, of one hour and guarded alike (`guard.key`), in one statement; what each
 * of them came to, in their order.
 */
async function storeExchanges(
  db: Db,
  exchanges: ReadonlyArray<{ exchange: Exchange; guard: StoreGuard }>,
  kind: Accounted["kind"],
  kept?: KeptRow,
): Promise<Stored[]> {
  const first = exchanges[0];
  if (!first) return [];
  const values = storeValues(exchanges);
  const rows = await storeStatement(db, kind, first.guard, kept).execute(
    kept ? { ...values, ...kept.values } : values,
  );
  // A row for each exchange stored, by its place (`n`, from 1); none for the others.
  const stored = new Map(rows.map((row) => [row.n, row.cost]));
  return exchanges.map((_, i) => {
    const cost = stored.get(i + 1);
    return {
      stored: cost !== undefined,
      cost: cost === null || cost === undefined ? null : Number(cost),
    };
  });
}

/** Exported with `storeQuery` for the benchmark's baseline (bench/baseline.ts). */
export function storeValues(
  exchanges: ReadonlyArray<{ exchange: Exchange; guard: Pick<StoreGuard, "id"> }>,
): Record<string, unknown> {
  const first = exchanges[0]?.exchange;
  if (!first) throw new Error("storeValues: no exchange");
  // One JSON parameter, not an array a column: a driver's array of text is its own format, and
  // the text is made storable first, as JSON carries no lone surrogate PostgreSQL takes.
  const rows = exchanges.map(({ exchange, guard }, n) => ({
    n: n + 1,
    aid: exchange.aid,
    caller: exchange.caller,
    chat_id: exchange.chatId,
    question: storableText(exchange.question),
    reply: storableText(exchange.reply),
    model: storableText(exchange.model),
    input_tokens: exchange.usage.input_tokens,
    output_tokens: exchange.usage.output_tokens,
    estimated: exchange.usage.estimated,
    tool_calls:
      exchange.toolCalls.length > 0 ? storableJsonText(JSON.stringify(exchange.toolCalls)) : null,
    asked_at: exchange.askedAt.toISOString(),
    answered_at: exchange.answeredAt.toISOString(),
    guard_id: guard.id,
  }));
  return { exchanges: JSON.stringify(rows), ...accountedPeriods(first.answeredAt) };
}

/** Built once per database handle, guard and kept row, not by drizzle on every chat. */
function storeStatement(
  db: Db,
  kind: Accounted["kind"],
  guard: Omit<StoreGuard, "id">,
  kept?: KeptRow,
) {
  const key = kept ? `${kind}_${guard.key}_${kept.key}` : `${kind}_${guard.key}`;
  return prepared(db, `store-${key}`, () =>
    storeQuery(db, kind, guard, kept).prepare(`store_${key}`),
  );
}

/**
 * Exported with `storeValues` for the benchmark's baseline, which takes its text. Its
 * `exchanges` are the JSON parameter's rows, `n` from 1; every row it writes of one agent or
 * thread is written once, in their order, so that concurrent stores take them in one order.
 */
export function storeQuery(
  db: Db,
  kind: Accounted["kind"],
  guard: Omit<StoreGuard, "id" | "values">,
  kept?: Omit<KeptRow, "values">,
) {
  const p = (name: string) => sql.placeholder(name);
  const settle = settleUsage({ kind, day: p("day"), month: p("month"), hour: p("hour") });
  const clause = (name: string, query: SQL) => db.$with(name, {}).as(query);
  const exchanges = sql`SELECT * FROM json_to_recordset(${p("exchanges")}::text::json) AS e(n integer,
      aid text, caller text, chat_id text, question text, reply text, model text,
      input_tokens integer, output_tokens integer, estimated boolean, tool_calls text,
      asked_at timestamptz, answered_at timestamptz, guard_id bigint)`;
  const thread = sql`
      INSERT INTO chat_threads (aid, caller, chat_id, message_count, created_at, last_message_at)
      SELECT s.aid, s.caller, s.chat_id, 2 * count(*), min(s.asked_at), max(s.answered_at)
      FROM settled AS s GROUP BY s.aid, s.caller, s.chat_id ORDER BY s.aid, s.caller, s.chat_id
      ON CONFLICT (aid, caller, chat_id) DO UPDATE
        SET message_count = chat_threads.message_count + EXCLUDED.message_count,
          last_message_at = EXCLUDED.last_message_at
      RETURNING aid, caller, chat_id`;
  const messages = sql`
      INSERT INTO chat_messages (aid, caller, chat_id, role, content, created_at,
        input_tokens, output_tokens, tokens_estimated, cost, tool_calls)
      SELECT s.aid, s.caller, s.chat_id, m.role, m.content, m.created_at, m.input_tokens,
        m.output_tokens, m.tokens_estimated, m.cost, m.tool_calls
      FROM settled AS s, LATERAL (VALUES
          (1, 'user', s.question, s.asked_at, NULL::integer, NULL::integer, NULL::boolean,
            NULL::numeric, NULL::jsonb),
          (2, 'assistant', s.reply, s.answered_at, s.input_tokens, s.output_tokens, s.estimated,
            s.cost, s.tool_calls::jsonb))
        AS m(position, role, content, created_at, input_tokens, output_tokens, tokens_estimated,
          cost, tool_calls)
      -- A question gets a lower id than its reply: history and listings are ordered by id.
      ORDER BY s.n, m.position`;
  // The store takes no quota row (the next chat's reserve waits on it): tokens go to
  // agent_token_usage, taken in the same order by every store; the reserve only reads it.
  return db
    .with(
      clause("exchanges", exchanges),
      clause("guard", guard.build()),
      ...(guard.effects ? [clause("guard_effects", guard.effects())] : []),
      clause("settled", settle.settled),
      db.$with("thread", { aid: sql<string>`aid` }).as(thread),
      clause("messages", messages),
      ...(kept ? [clause("kept", kept.build(p))] : []),
      clause("settle_tokens", settle.tokens),
      clause("settle_usage", settle.usage),
    )
    .select({
      n: sql<number>`s.n`,
      cost: sql<number | string | null>`s.cost::float8`,
    })
    .from(sql`settled AS s`);
}
