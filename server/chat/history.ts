import { and, asc, desc, eq, gt, lt, or } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { chatMessages, chatThreads } from "@/db/schema";
import { assertAgentExists } from "@/server/agents/agents";
import { beforeIdCursor, decodeCursor, keysetPage } from "@/server/pagination/cursor";
import type {
  listMessagesInputSchema,
  listMessagesOutputSchema,
  listThreadsInputSchema,
  listThreadsOutputSchema,
} from "./schema";

/** Reading conversations back (admin): an agent's threads, and a thread's messages. */

type Ctx = { db: Db };

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
    })),
    next_cursor: nextCursor,
  };
}

const threadCursor = z.object({ at: z.iso.datetime(), id: z.string() });

/** A page of an agent's threads, most recently active first. */
export async function listThreads(
  { db }: Ctx,
  input: z.output<typeof listThreadsInputSchema>,
): Promise<z.output<typeof listThreadsOutputSchema>> {
  await assertAgentExists(db, input.aid);
  const after = input.cursor ? decodeCursor(input.cursor, threadCursor) : undefined;
  const afterAt = after ? new Date(after.at) : undefined;
  const rows = await db
    .select()
    .from(chatThreads)
    .where(
      and(
        eq(chatThreads.aid, input.aid),
        after && afterAt
          ? or(
              lt(chatThreads.lastMessageAt, afterAt),
              and(eq(chatThreads.lastMessageAt, afterAt), gt(chatThreads.chatId, after.id)),
            )
          : undefined,
      ),
    )
    .orderBy(desc(chatThreads.lastMessageAt), asc(chatThreads.chatId))
    .limit(input.limit + 1);
  const { page, nextCursor } = keysetPage(rows, input.limit, (last) => ({
    at: last.lastMessageAt.toISOString(),
    id: last.chatId,
  }));
  return {
    threads: page.map((t) => ({
      chat_id: t.chatId,
      message_count: t.messageCount,
      created_at: t.createdAt.toISOString(),
      last_message_at: t.lastMessageAt.toISOString(),
    })),
    next_cursor: nextCursor,
  };
}
