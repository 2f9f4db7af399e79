import { and, eq, inArray, isNotNull, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { chatCancels } from "@/db/schema";
import { type Caller, callerScope } from "@/server/callers";
import type { DataContext } from "@/server/frame/data-context";
import { AppError } from "@/server/frame/errors";
import { log } from "@/server/observability";

/**
 * Cancelling a chat in flight from any instance, by its request id (its answer's X-Request-Id):
 * the cancel writes a row; each process with chats in flight reads the rows of its chats every
 * CANCEL_POLL_MS (one statement for all), stops a chat whose caller the asker is (or any, for
 * the admin) and marks the row done; the cancel answers once it is, or 404 after CANCEL_WAIT_MS.
 * A chat itself writes nothing: it is only listed in its process.
 */

const CANCEL_POLL_MS = 250;
/** How often the cancels waiting in a process read, in one statement, which chats stopped. */
const WAIT_POLL_MS = 100;
const CANCEL_WAIT_MS = 2_000;
/** Cancels one caller may have waiting at once in a process: each holds a row and a request. */
const CANCELS_PER_CALLER = 256;

export const CANCELLED_DETAIL =
  "The chat was cancelled on request (POST /{aid}/chat/{request_id}/cancel) before it ended.";

type InFlight = { aid: string; scope: string; controller: AbortController };

const inFlight = new Map<string, Set<InFlight>>();
const waiting = new Map<string, number>();
let poller: NodeJS.Timeout | undefined;
/** The cancels waiting here for their chat to stop, by request id and asker. */
const waiters = new Map<string, { requestId: string; scope: string; seen: () => void }>();
let waitPoller: NodeJS.Timeout | undefined;

/**
 * Lists a chat of this process for cancels: the signal aborts (its reason `chat_cancelled`) when
 * one comes, or when `client` does (its reason). `done` takes it off the list.
 */
export function watchChat(
  db: Db,
  chat: { requestId: string; aid: string; caller: Caller },
  client: AbortSignal | undefined,
): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  const entry: InFlight = { aid: chat.aid, scope: callerScope(chat.caller), controller };
  let entries = inFlight.get(chat.requestId);
  if (!entries) {
    entries = new Set();
    inFlight.set(chat.requestId, entries);
  }
  entries.add(entry);
  const onClientGone = () => controller.abort(client?.reason);
  if (client?.aborted) onClientGone();
  else client?.addEventListener("abort", onClientGone, { once: true });
  poller ??= setInterval(() => {
    poll(db).catch((error: unknown) =>
      log.warn({ err: error }, "Reading the chats' cancels failed; trying again"),
    );
  }, CANCEL_POLL_MS).unref();
  return {
    signal: controller.signal,
    done() {
      client?.removeEventListener("abort", onClientGone);
      entries.delete(entry);
      if (entries.size === 0) inFlight.delete(chat.requestId);
      if (inFlight.size === 0 && poller) {
        clearInterval(poller);
        poller = undefined;
      }
    },
  };
}

/** Stops the chats of `requestId` of agent `aid` that `scope` may stop; true if any was. */
function stopHere(requestId: string, aid: string, scope: string): boolean {
  let stopped = false;
  for (const entry of inFlight.get(requestId) ?? []) {
    if (entry.aid !== aid || (scope !== "admin" && scope !== entry.scope)) continue;
    if (!entry.controller.signal.aborted)
      entry.controller.abort(new AppError("chat_cancelled", CANCELLED_DETAIL));
    stopped = true;
  }
  return stopped;
}

async function poll(db: Db): Promise<void> {
  const ids = [...inFlight.keys()];
  if (ids.length === 0) return;
  const asked = await db
    .select({ requestId: chatCancels.requestId, caller: chatCancels.caller, aid: chatCancels.aid })
    .from(chatCancels)
    .where(and(inArray(chatCancels.requestId, ids), isNull(chatCancels.doneAt)));
  const stopped = asked.filter((cancel) => stopHere(cancel.requestId, cancel.aid, cancel.caller));
  if (stopped.length === 0) return;
  // One statement marks them all: a burst of cancels waits on no queue of updates.
  await db
    .update(chatCancels)
    .set({ doneAt: sql`now()` })
    .where(
      sql`(${chatCancels.requestId}, ${chatCancels.caller}) IN (${sql.join(
        stopped.map((cancel) => sql`(${cancel.requestId}, ${cancel.caller})`),
        sql`, `,
      )})`,
    );
}

/**
 * POST /{aid}/chat/{request_id}/cancel, for a caller the agent admits (checked before): stops
 * the chat wherever it is answered, and says so; 404 when no process stopped one in time.
 */
export async function cancelChat(
  ctx: DataContext & { caller: Caller },
  { aid, requestId }: { aid: string; requestId: string },
): Promise<{ request_id: string; cancelled: true }> {
  const scope = callerScope(ctx.caller);
  const answer = { request_id: requestId, cancelled: true as const };
  // Answered in this process: no row, no wait.
  if (stopHere(requestId, aid, scope)) return answer;
  const held = waiting.get(scope) ?? 0;
  if (held >= CANCELS_PER_CALLER)
    throw new AppError(
      "rate_limited",
      `You already have ${CANCELS_PER_CALLER} cancels waiting on this server; wait for their answers.`,
      { retryAfterS: 2 },
    );
  waiting.set(scope, held + 1);
  const now = ctx.clock.now();
  try {
    // Rows a cancel left behind (its process died while it waited) go first.
    await ctx.db
      .delete(chatCancels)
      .where(lt(chatCancels.requestedAt, new Date(now.getTime() - 60_000)));
    await ctx.db
      .insert(chatCancels)
      .values({ requestId, caller: scope, aid, requestedAt: now })
      .onConflictDoUpdate({
        target: [chatCancels.requestId, chatCancels.caller],
        set: { aid, requestedAt: now, doneAt: null },
      });
    const done = await stopSeen(ctx.db, requestId, scope);
    if (!done) throw chatNotInFlight(aid, requestId);
    return answer;
  } finally {
    waiting.set(scope, (waiting.get(scope) ?? 1) - 1);
    if (waiting.get(scope) === 0) waiting.delete(scope);
    await ctx.db
      .delete(chatCancels)
      .where(and(eq(chatCancels.requestId, requestId), eq(chatCancels.caller, scope)))
      .catch(() => {});
  }
}

/** Whether the chat's process marked the cancel done within CANCEL_WAIT_MS. */
function stopSeen(db: Db, requestId: string, scope: string): Promise<boolean> {
  const key = `${requestId}\0${scope}`;
  return new Promise((resolve) => {
    const finish = (seen: boolean) => {
      clearTimeout(timer);
      waiters.delete(key);
      if (waiters.size === 0 && waitPoller) {
        clearInterval(waitPoller);
        waitPoller = undefined;
      }
      resolve(seen);
    };
    const timer = setTimeout(() => finish(false), CANCEL_WAIT_MS);
    waiters.set(key, { requestId, scope, seen: () => finish(true) });
    waitPoller ??= setInterval(() => {
      readStops(db).catch((error: unknown) =>
        log.warn({ err: error }, "Reading the cancels' answers failed; trying again"),
      );
    }, WAIT_POLL_MS).unref();
  });
}

async function readStops(db: Db): Promise<void> {
  const asked = [...waiters.values()];
  if (asked.length === 0) return;
  const stopped = await db
    .select({ requestId: chatCancels.requestId, caller: chatCancels.caller })
    .from(chatCancels)
    .where(
      and(
        inArray(
          chatCancels.requestId,
          asked.map((w) => w.requestId),
        ),
        isNotNull(chatCancels.doneAt),
      ),
    );
  for (const { requestId, caller } of stopped) waiters.get(`${requestId}\0${caller}`)?.seen();
}

function chatNotInFlight(aid: string, requestId: string): AppError {
  return new AppError(
    "not_found",
    `No chat of agent '${aid}' with request id '${requestId}' is in flight for you: it has ended, has not begun, or is another caller's.`,
  );
}
