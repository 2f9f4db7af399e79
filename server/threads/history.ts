import { type SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";
import { chatMessages, type StoredToolCall } from "@/db/schema";
import type { ChatConfig } from "@/server/frame/config";
import type { ChatTurn } from "@/server/providers";

/** Where a thread is: the agent, the caller it belongs to (see chat_threads), its name. */
export type ThreadRef = { aid: string; caller: string; chatId: string };

/** The thread's recent messages within both history limits, oldest first: `historyJson` alone. */
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

/** Prepared once per database handle: every autonomous run reads its thread. */
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

export type HistoryConfig = Pick<ChatConfig, "historyMessages" | "historyMaxChars">;

/** `loadHistory`'s read as an expression for a larger statement; `historyFromJson` reads it. */
export function historyJson(
  thread: { aid: unknown; caller: unknown; chatId: unknown },
  limit: unknown,
): SQL {
  return sql`(SELECT ${HISTORY_JSON} FROM ${historyRows(thread, limit)} h)`;
}

/**
 * The same read as a SELECT of two columns: `history_json`, and `history_chars`, the characters
 * of its messages and their tool calls (what a chat's hold counts) summed as they are read.
 */
export function historyRead(
  thread: { aid: unknown; caller: unknown; chatId: unknown },
  limit: unknown,
): SQL {
  return sql`SELECT ${HISTORY_JSON} AS history_json, coalesce(sum(char_length(h.content)
      + CASE WHEN jsonb_typeof(h.tool_calls) = 'array' THEN char_length(h.tool_calls::text) ELSE 0 END), 0)
      AS history_chars
    FROM ${historyRows(thread, limit)} h`;
}

const HISTORY_JSON = sql`coalesce(json_agg(json_build_array(h.role, h.content, h.tool_calls) ORDER BY h.id), '[]'::json)`;

function historyRows(thread: { aid: unknown; caller: unknown; chatId: unknown }, limit: unknown) {
  // One backward scan of the thread's index (aid, caller, chat_id, id), stopping after `limit`
  // rows. chat_id is matched as a range (the same rows: collations here are deterministic): with
  // `=` PostgreSQL drops it from the order, and a generic plan may then scan the primary key
  // backwards, which reads the whole table for a short thread beside a large one.
  const m = chatMessages;
  return sql`(SELECT ${m.id} AS id, ${m.role} AS role, ${m.content} AS content, ${m.toolCalls} AS tool_calls
      FROM ${m}
      WHERE ${m.aid} = ${thread.aid} AND ${m.caller} = ${thread.caller}
        AND ${m.chatId} >= ${thread.chatId} AND ${m.chatId} <= ${thread.chatId}
      ORDER BY ${m.chatId} DESC, ${m.id} DESC LIMIT ${limit})`;
}

type HistoryRow = {
  role: "user" | "assistant";
  content: string;
  toolCalls: StoredToolCall[] | null;
};

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
 * The messages as the model is given them: a reply that followed tool calls is preceded by each
 * turn's calls and results (OpenAI's form), so the model sees what it did, not only what it said.
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
