import { type SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import { chatMessages, type StoredToolCall } from "@/db/schema";
import type { ChatConfig } from "@/server/frame/config";
import type { ChatTurn } from "@/server/providers";

/**
 * The history read: a thread's messages as the model sees them, for chat and autonomous runs,
 * which talk in threads alike (the exchange store, exchange.ts, writes them).
 */

/** Where a thread is: the agent, the caller it belongs to (see chat_threads), its name. */
export type ThreadRef = { aid: string; caller: string; chatId: string };

/**
 * The thread's most recent messages, oldest first: at most `historyMessages`, and at most
 * `historyMaxChars` characters of them (the oldest go first). The same read as the chat's
 * opening statement makes (`historyJson`), on its own.
 */
export async function loadHistory(
  db: Db,
  { aid, caller, chatId }: ThreadRef,
  config: HistoryConfig,
): Promise<ChatTurn[]> {
  if (config.historyMessages === 0) return [];
  const [row] = await historyStatement(db).execute({
    aid,
    caller,
    chatId,
    limit: config.historyMessages,
  });
  return historyFromJson(row?.history ?? [], config);
}

/**
 * The history read on its own, prepared once per database handle: every autonomous run reads
 * its thread, and drizzle building the statement again was about 5% of a scheduler worker's
 * busy time (BENCHMARKS.md).
 */
function historyStatement(db: Db) {
  const p = (name: string) => sql.placeholder(name);
  return prepared(db, "thread-history", () =>
    db
      .select({
        history: sql<unknown>`${historyJson({ aid: p("aid"), caller: p("caller"), chatId: p("chatId") }, p("limit"))}`,
      })
      .from(sql`(SELECT 1) AS one`)
      .prepare("thread_history"),
  );
}

/** How much history a model call is given (HISTORY_MESSAGES, HISTORY_MAX_CHARS). */
export type HistoryConfig = Pick<ChatConfig, "historyMessages" | "historyMaxChars">;

/**
 * The same read as `loadHistory`, as an expression to put in a larger statement: a JSON array
 * of `[role, content, tool_calls]`, oldest first. `aid`, `chatId` and `limit` are values or placeholders.
 * Give what it returns to `historyFromJson`.
 */
export function historyJson(
  thread: { aid: unknown; caller: unknown; chatId: unknown },
  limit: unknown,
): SQL {
  // Read by one backward scan of the thread's index (aid, caller, chat_id, id), which stops
  // after `limit` rows, so its cost grows with neither the thread nor the table. The thread's
  // name is matched as a range (the same rows as `=`: collations here are deterministic) and
  // ordered by: with `=` PostgreSQL drops chat_id from the order, and a prepared statement's
  // generic plan may then read the primary key backwards and filter instead, which scans the
  // whole table for a new or short thread beside a large one (24.9 ms at 204,000 rows,
  // BENCHMARKS.md). Only the thread's index gives this order.
  const m = chatMessages;
  return sql`(SELECT coalesce(json_agg(json_build_array(h.role, h.content, h.tool_calls) ORDER BY h.id), '[]'::json)
    FROM (SELECT ${m.id} AS id, ${m.role} AS role, ${m.content} AS content, ${m.toolCalls} AS tool_calls
      FROM ${m}
      WHERE ${m.aid} = ${thread.aid} AND ${m.caller} = ${thread.caller}
        AND ${m.chatId} >= ${thread.chatId} AND ${m.chatId} <= ${thread.chatId}
      ORDER BY ${m.chatId} DESC, ${m.id} DESC LIMIT ${limit}) h)`;
}

/** A stored message as history reads it. */
type HistoryRow = {
  role: "user" | "assistant";
  content: string;
  toolCalls: StoredToolCall[] | null;
};

/** The turns of a `historyJson` result, within HISTORY_MAX_CHARS. */
export function historyFromJson(json: unknown, config: HistoryConfig): ChatTurn[] {
  const rows = json as [HistoryRow["role"], string, StoredToolCall[] | null][];
  return asTurns(
    keepRecent(
      rows.map(([role, content, toolCalls]) => ({ role, content, toolCalls })),
      config,
    ),
  );
}

/** The newest messages that fit in `historyMaxChars` (tool calls counted), oldest first. */
function keepRecent(oldestFirst: HistoryRow[], { historyMaxChars }: HistoryConfig): HistoryRow[] {
  let chars = 0;
  let first = oldestFirst.length;
  while (first > 0) {
    const row = oldestFirst[first - 1] as HistoryRow;
    chars += row.content.length + (row.toolCalls ? toolCallChars(row.toolCalls) : 0);
    if (chars > historyMaxChars) break;
    first--;
  }
  return first === 0 ? oldestFirst : oldestFirst.slice(first);
}

function toolCallChars(calls: StoredToolCall[]): number {
  let chars = 0;
  for (const call of calls)
    chars += (call.result ?? call.error ?? "").length + JSON.stringify(call.arguments ?? {}).length;
  return chars;
}

/**
 * The messages as the model is given them: a reply that followed tool calls is preceded, for
 * each of its turns that called tools, by the turn's calls and their results (in the OpenAI
 * form), so the model sees what it did and learned, not only what it said.
 */
function asTurns(rows: HistoryRow[]): ChatTurn[] {
  const turns: ChatTurn[] = [];
  for (const { role, content, toolCalls } of rows) {
    if (role === "assistant" && toolCalls?.length) {
      const steps = [...new Set(toolCalls.map((call) => call.step))].sort((a, b) => a - b);
      for (const step of steps) {
        const calls = toolCalls.filter((call) => call.step === step);
        turns.push({
          role: "assistant",
          content: null,
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: "function",
            function: {
              name: call.name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64),
              arguments:
                typeof call.arguments === "string"
                  ? call.arguments
                  : JSON.stringify(call.arguments),
            },
          })),
        });
        for (const call of calls)
          turns.push({
            role: "tool",
            tool_call_id: call.id,
            content: call.error === null ? (call.result ?? "") : `Error: ${call.error}`,
          });
      }
    }
    turns.push({ role, content });
  }
  return turns;
}
