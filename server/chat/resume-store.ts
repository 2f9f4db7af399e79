import { and, asc, eq, gt, isNull, lt } from "drizzle-orm";
import type { Db } from "@/db/client";
import { chatStreamEvents, chatStreams } from "@/db/schema";

/**
 * The recorded streams of chats whose client left (resume.ts): written only from the moment the
 * client left, every RECORD_MS while the chat goes on, by the one process answering it.
 */

export type StreamKey = { caller: string; requestId: string };
type Status = "live" | "ended" | "abandoned";

const where = (key: StreamKey) =>
  and(eq(chatStreams.caller, key.caller), eq(chatStreams.requestId, key.requestId));

/** Begins a recording with the frames so far; a stream ended long ago goes first. */
export async function beginRecording(
  db: Db,
  key: StreamKey & { aid: string },
  frames: string[],
  {
    now,
    graceUntil,
    keepMs,
    status,
  }: { now: Date; graceUntil: Date; keepMs: number; status: Status },
): Promise<void> {
  await db.delete(chatStreams).where(lt(chatStreams.endedAt, new Date(now.getTime() - keepMs)));
  await db.transaction(async (tx) => {
    // The same caller may send the same X-Request-Id again: the older recording gives way.
    await tx.delete(chatStreams).where(where(key));
    await tx.insert(chatStreams).values({
      ...key,
      status,
      graceUntil,
      heartbeatAt: now,
      endedAt: status === "live" ? null : now,
    });
    if (frames.length > 0)
      await tx
        .insert(chatStreamEvents)
        .values(frames.map((frame, seq) => ({ ...key, seq, frame })));
  });
}

/** Writes the frames from `from` on, beats, and ends the stream with `status` when given. */
export async function recordFrames(
  db: Db,
  key: StreamKey,
  frames: string[],
  from: number,
  { now, status }: { now: Date; status?: Status },
): Promise<void> {
  if (frames.length > from)
    await db
      .insert(chatStreamEvents)
      .values(frames.slice(from).map((frame, i) => ({ ...key, seq: from + i, frame })));
  await db
    .update(chatStreams)
    .set({ heartbeatAt: now, ...(status ? { status, endedAt: now } : {}) })
    .where(where(key));
}

/**
 * At the end of the grace: true if the stream is to be stopped (no client resumed it), which
 * this one statement decides against a resume racing it.
 */
export async function abandonUnlessResumed(db: Db, key: StreamKey): Promise<boolean> {
  const abandoned = await db
    .update(chatStreams)
    .set({ status: "abandoned" })
    .where(and(where(key), isNull(chatStreams.resumedAt), eq(chatStreams.status, "live")))
    .returning({ requestId: chatStreams.requestId });
  return abandoned.length === 1;
}

/** A client resumes a live stream: from now on it is answered to its end. */
export async function markResumed(db: Db, key: StreamKey, now: Date): Promise<boolean> {
  const found = await db
    .update(chatStreams)
    .set({ resumedAt: now })
    .where(and(where(key), eq(chatStreams.status, "live")))
    .returning({ requestId: chatStreams.requestId });
  return found.length === 1;
}

/** Whose recordings of `requestId` there are (callers' scopes): none yet, or some. */
export async function streamCallers(db: Db, requestId: string): Promise<string[]> {
  const rows = await db
    .select({ caller: chatStreams.caller })
    .from(chatStreams)
    .where(eq(chatStreams.requestId, requestId));
  return rows.map((row) => row.caller);
}

/**
 * The frames after `after`, a page of them, and the stream as read before them: once it has
 * `endedAt`, every frame was written (the end is written after the last frames).
 */
export async function framesAfter(db: Db, key: StreamKey, after: number, page: number) {
  const [stream] = await db
    .select({ endedAt: chatStreams.endedAt, heartbeatAt: chatStreams.heartbeatAt })
    .from(chatStreams)
    .where(where(key));
  const frames = await db
    .select({ seq: chatStreamEvents.seq, frame: chatStreamEvents.frame })
    .from(chatStreamEvents)
    .where(
      and(
        eq(chatStreamEvents.caller, key.caller),
        eq(chatStreamEvents.requestId, key.requestId),
        gt(chatStreamEvents.seq, after),
      ),
    )
    .orderBy(asc(chatStreamEvents.seq))
    .limit(page);
  return { stream, frames };
}
