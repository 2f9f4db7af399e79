import { and, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { isMissingReference } from "@/db/failures";
import { rowsOf } from "@/db/rows";
import { responses, type StoredInputMessage } from "@/db/schema";
import { agentNotFound } from "@/server/agents";
import { type Caller, callerId } from "@/server/callers";
import { AppError } from "@/server/frame/errors";
import { storableJsonText, storableText } from "@/server/kit/text";
import type { ChatTurn } from "@/server/providers";
import type { KeptRow } from "@/server/threads";

/**
 * The responses their callers keep: written once, read back, listed and continued only by the
 * caller that asked (or the admin), deleted on request or with their agent.
 */

export type KeptResponse = Omit<typeof responses.$inferInsert, "caller">;
type ResponseRow = typeof responses.$inferSelect;
type Ctx = { db: Db; caller: Caller };

/** How many responses back a conversation is read: more than any history the model is sent. */
const CHAIN_MAX = 100;

export async function keepResponse({ db, caller }: Ctx, kept: KeptResponse): Promise<void> {
  try {
    await db.insert(responses).values({ ...kept, caller: callerId(caller) });
  } catch (error) {
    // The agent was deleted while it answered: its responses went with it, as this one does.
    if (isMissingReference(error)) throw agentNotFound(kept.aid);
    throw error;
  }
}

/**
 * A response kept by the chat's store statement, with its exchange and only if it is stored
 * (server/threads `KeptRow`): its agent and caller are the exchange's.
 */
export function keptResponse(
  kept: Omit<KeptResponse, "aid" | "outputText" | "inputTokens" | "outputTokens">,
): (reply: { text: string; usage: { input_tokens: number; output_tokens: number } }) => KeptRow {
  // Made when the reply is stored, so that a refused chat serializes nothing.
  return ({ text, usage }) => ({
    key: "response",
    build: KEPT_RESPONSE,
    values: {
      keptId: kept.id,
      keptPrevious: kept.previousResponseId ?? null,
      keptInstructions:
        kept.instructions === null || kept.instructions === undefined
          ? null
          : storableText(kept.instructions),
      keptInput: storableJsonText(JSON.stringify(kept.input)),
      keptMetadata: storableJsonText(JSON.stringify(kept.metadata)),
      keptSettings: storableJsonText(JSON.stringify(kept.settings)),
      keptCreatedAt: kept.createdAt.toISOString(),
      keptOutput: storableText(text),
      keptInputTokens: usage.input_tokens,
      keptOutputTokens: usage.output_tokens,
    },
  });
}

const KEPT_RESPONSE: KeptRow["build"] = (p) => sql`
  INSERT INTO responses (id, aid, caller, previous_response_id, instructions, input, output_text,
    input_tokens, output_tokens, metadata, settings, created_at)
  SELECT ${p("keptId")}::text, thread.aid, thread.caller, ${p("keptPrevious")}::text,
    ${p("keptInstructions")}::text, ${p("keptInput")}::jsonb, ${p("keptOutput")}::text,
    ${p("keptInputTokens")}::integer, ${p("keptOutputTokens")}::integer, ${p("keptMetadata")}::jsonb,
    ${p("keptSettings")}::jsonb, ${p("keptCreatedAt")}::timestamptz
  FROM thread`;

/** The caller's own responses, or everyone's for the admin. */
export function whose(caller: Caller): SQL | undefined {
  return caller.kind === "admin" ? undefined : eq(responses.caller, callerId(caller));
}

export function responseNotFound(id: string): AppError {
  return new AppError(
    "not_found",
    `No response with id '${id.slice(0, 100)}' is kept for you: it was not stored (store: false), was deleted, or is another caller's.`,
  );
}

export async function findResponse({ db, caller }: Ctx, id: string): Promise<ResponseRow> {
  const [row] = await db
    .select()
    .from(responses)
    .where(and(eq(responses.id, id), whose(caller)));
  if (!row) throw responseNotFound(id);
  return row;
}

export async function removeResponse({ db, caller }: Ctx, id: string): Promise<void> {
  const gone = await db
    .delete(responses)
    .where(and(eq(responses.id, id), whose(caller)))
    .returning({ id: responses.id });
  if (gone.length === 0) throw responseNotFound(id);
}

/**
 * The conversation up to and with response `id` (the caller's, of agent `aid`): each response's
 * input and reply, oldest first, the oldest responses dropped whole past `maxChars`. Each
 * response's own instructions are not carried over, as OpenAI's are not.
 */
export async function previousTurns(
  { db, caller }: Ctx,
  { id, aid, maxChars }: { id: string; aid: string; maxChars: number },
): Promise<ChatTurn[]> {
  const mine = caller.kind === "admin" ? sql`true` : sql`r.caller = ${callerId(caller)}`;
  const chain = rowsOf<{ input: StoredInputMessage[] | string; output_text: string }>(
    await db.execute(sql`
      WITH RECURSIVE chain AS (
        SELECT r.id, r.previous_response_id, r.input, r.output_text, 1 AS depth
        FROM ${responses} r WHERE r.id = ${id} AND r.aid = ${aid} AND ${mine}
          AND r.status = 'completed'
        UNION ALL
        SELECT r.id, r.previous_response_id, r.input, r.output_text, c.depth + 1
        FROM chain c JOIN ${responses} r ON r.id = c.previous_response_id
        WHERE r.aid = ${aid} AND ${mine} AND r.status = 'completed' AND c.depth < ${CHAIN_MAX}
      )
      SELECT input, output_text FROM chain ORDER BY depth`),
  );
  if (chain.length === 0)
    throw new AppError(
      "validation_failed",
      `previous_response_id '${id.slice(0, 100)}' is no completed response of yours to agent '${aid}' that was kept; send the conversation in input instead.`,
      { errors: [{ field: "previous_response_id", detail: "is not a kept response of yours" }] },
    );
  // Newest first, as read: kept while they fit, then put back in order.
  const kept: ChatTurn[][] = [];
  let chars = 0;
  for (const row of chain) {
    const input = typeof row.input === "string" ? JSON.parse(row.input) : row.input;
    const turns: ChatTurn[] = [
      ...(input as StoredInputMessage[]).map(turnOf),
      { role: "assistant", content: row.output_text },
    ];
    chars += turns.reduce((n, turn) => n + (turn.content?.length ?? 0), 0);
    if (chars > maxChars) break;
    kept.unshift(turns);
  }
  return kept.flat();
}

/** A message as the model is given it: developer is OpenAI's newer name for system. */
export function turnOf({ role, text }: StoredInputMessage): ChatTurn {
  return role === "system" || role === "developer"
    ? { role: "system", content: text }
    : { role, content: text };
}

/** A page of a response's input messages, by their ids (`<response id>_<index>`). */
export async function inputItemsPage(
  ctx: Ctx,
  {
    id,
    limit,
    order,
    after,
  }: { id: string; limit: number; order: "asc" | "desc"; after?: string | undefined },
) {
  const row = await findResponse(ctx, id);
  const items = row.input.map((message, index) => ({
    type: "message" as const,
    id: `msg_${row.id.slice("resp_".length)}_${index}`,
    status: "completed" as const,
    role: message.role,
    content: [
      {
        type: message.role === "assistant" ? ("output_text" as const) : ("input_text" as const),
        text: message.text,
      },
    ],
  }));
  const ordered = order === "asc" ? items : [...items].reverse();
  const start = after ? ordered.findIndex((item) => item.id === after) + 1 : 0;
  const data = ordered.slice(start, start + limit);
  return {
    object: "list" as const,
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: start + limit < ordered.length,
  };
}
