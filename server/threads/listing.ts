import { and, asc, desc, eq, gt, lt, or, sql } from "drizzle-orm";
import { z } from "zod";
import { agentKeys, chatMessages, chatThreads } from "@/db/schema";
import { assertAgentExists } from "@/server/agents";
import type { DataContext } from "@/server/frame/data-context";
import { instant } from "@/server/kit/bounds";
import { withoutNul } from "@/server/kit/text";
import { storedUsage } from "@/server/model-call";
import { beforeIdCursor, decodeCursor, keysetPage } from "@/server/pagination";
import type {
  listMessagesInputSchema,
  listMessagesOutputSchema,
  listThreadsInputSchema,
  listThreadsOutputSchema,
} from "./schema";
import { AGENT_CALLER } from "./schema";

type Ctx = Pick<DataContext, "db">;

/** A page of a thread's messages: the newest `limit` older than the cursor, oldest first. */
export async function listMessages(
  { db }: Ctx,
  input: z.output<typeof listMessagesInputSchema>,
): Promise<z.output<typeof listMessagesOutputSchema>> {
  await assertAgentExists(db, input.aid);
  const before = input.cursor ? decodeCursor(input.cursor, beforeIdCursor).before : undefined;
  const newestFirst = await db
    .select()
    .from(chatMessages)
    .where(
      and(
        eq(chatMessages.aid, input.aid),
        eq(chatMessages.caller, input.caller),
        eq(chatMessages.chatId, input.chat_id),
        before === undefined ? undefined : lt(chatMessages.id, before),
      ),
    )
    .orderBy(desc(chatMessages.id))
    .limit(input.limit + 1);
  // Newest first, so the page's last row is its oldest: the next page is older than it.
  const { page, nextCursor } = keysetPage(newestFirst, input.limit, (oldest) => ({
    before: oldest.id,
  }));
  return {
    messages: page.reverse().map((m) => ({
      id: m.id,
      role: m.role,
      content: m.content,
      created_at: m.createdAt.toISOString(),
      usage: storedUsage(m),
      tool_calls: m.toolCalls ?? [],
    })),
    next_cursor: nextCursor,
  };
}

/** Read through the same bounds as any instant or text a client sends: it is client input too. */
const threadCursor = z.object({
  at: instant(),
  caller: z.string().refine(withoutNul),
  id: z.string().refine(withoutNul),
});

/** A page of an agent's threads, most recently active first, each with whose it is. */
export async function listThreads(
  { db }: Ctx,
  input: z.output<typeof listThreadsInputSchema>,
): Promise<z.output<typeof listThreadsOutputSchema>> {
  await assertAgentExists(db, input.aid);
  const after = input.cursor ? decodeCursor(input.cursor, threadCursor) : undefined;
  const afterAt = after ? new Date(after.at) : undefined;
  const t = chatThreads;
  const rows = await db
    .select({ thread: t, keyName: agentKeys.name })
    .from(t)
    .leftJoin(agentKeys, eq(sql`'key:' || ${agentKeys.id}`, t.caller))
    .where(
      and(
        eq(t.aid, input.aid),
        input.caller === undefined ? undefined : eq(t.caller, input.caller),
        after && afterAt
          ? or(
              lt(t.lastMessageAt, afterAt),
              and(
                eq(t.lastMessageAt, afterAt),
                or(
                  gt(t.caller, after.caller),
                  and(eq(t.caller, after.caller), gt(t.chatId, after.id)),
                ),
              ),
            )
          : undefined,
      ),
    )
    .orderBy(desc(t.lastMessageAt), asc(t.caller), asc(t.chatId))
    .limit(input.limit + 1);
  const { page, nextCursor } = keysetPage(rows, input.limit, (last) => ({
    at: last.thread.lastMessageAt.toISOString(),
    caller: last.thread.caller,
    id: last.thread.chatId,
  }));
  return {
    threads: page.map(({ thread, keyName }) => ({
      caller: thread.caller,
      caller_label: callerLabel(thread.caller, keyName),
      chat_id: thread.chatId,
      message_count: thread.messageCount,
      created_at: thread.createdAt.toISOString(),
      last_message_at: thread.lastMessageAt.toISOString(),
    })),
    next_cursor: nextCursor,
  };
}

/**
 * Whose a thread is, in words (see chat_threads.caller for the stored forms), with the key's
 * name for a key caller when it is known. The request log names its callers so too.
 */
export function callerLabel(caller: string, keyName: string | null): string {
  if (caller === "admin") return "admin";
  if (caller === AGENT_CALLER) return "autonomous runs";
  if (caller === "shared") return "shared (before thread owners)";
  const [kind, id = ""] = caller.split(/:(.*)/s);
  if (kind === "key") return keyName === null ? `key ${id}` : `key '${keyName}'`;
  if (kind === "addr") return `address #${id.slice(0, 8)}`;
  if (kind === "wallet") return `wallet ${id.slice(0, 6)}…${id.slice(-4)}`;
  return caller;
}
