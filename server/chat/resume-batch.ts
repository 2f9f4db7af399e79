import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { log } from "@/server/observability";
import type { StreamKey } from "./resume-store";

/**
 * Streams that ended with their client still there, recorded all the same: the client may have
 * left with the last events still on the way (written to the socket, never read), and comes back
 * for them. Off the chat's path: buffered in this process and written every FLUSH_MS in one
 * statement for all of them, with the purge of those older than CHAT_RESUME_S. A kill -9 loses
 * what the buffer held: such a stream is not resumed, its reply is in its thread all the same.
 */

const FLUSH_MS = 100;
const BATCH = 200;
const MAX_BUFFERED = 5_000;

type Ended = StreamKey & { aid: string; frames: string[]; endedAt: Date };

const buffers = new WeakMap<Db, EndedStreams>();

export function endedStreamsOf(db: Db, keepMs: number): EndedStreams {
  let found = buffers.get(db);
  if (!found) {
    found = new EndedStreams(db, keepMs);
    buffers.set(db, found);
  }
  return found;
}

class EndedStreams {
  private buffer: Ended[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private purgedAt = 0;

  constructor(
    private readonly db: Db,
    private readonly keepMs: number,
  ) {}

  add(stream: Ended): void {
    if (this.buffer.length >= MAX_BUFFERED) return;
    this.buffer.push(stream);
    if (this.buffer.length >= BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes what is buffered (after any write in progress); never rejects. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  private async write(): Promise<void> {
    const batch = this.buffer.splice(0);
    if (batch.length === 0) return;
    const streams = batch.map(({ caller, requestId, aid, endedAt }) => ({
      caller,
      request_id: requestId,
      aid,
      ended_at: endedAt.toISOString(),
    }));
    const frames = batch.flatMap(({ caller, requestId, frames }) =>
      frames.map((frame, seq) => ({ caller, request_id: requestId, seq, frame })),
    );
    try {
      // The stream rows and their frames in one statement; a stream recorded already (its
      // client left before the end) keeps its recording.
      await this.db.execute(sql`WITH s AS (
          INSERT INTO chat_streams (caller, request_id, aid, status, grace_until, heartbeat_at,
            ended_at)
          SELECT caller, request_id, aid, 'ended', ended_at, ended_at, ended_at
          FROM json_to_recordset(${JSON.stringify(streams)}::json)
            AS r(caller text, request_id text, aid text, ended_at timestamptz)
          ON CONFLICT (caller, request_id) DO NOTHING
          RETURNING caller, request_id)
        INSERT INTO chat_stream_events (caller, request_id, seq, frame)
        SELECT e.caller, e.request_id, e.seq, e.frame
        FROM json_to_recordset(${JSON.stringify(frames)}::json)
          AS e(caller text, request_id text, seq integer, frame text)
        JOIN s USING (caller, request_id)`);
      const now = Date.now();
      if (now - this.purgedAt >= 1_000) {
        this.purgedAt = now;
        const cutoff = new Date((batch.at(-1) as Ended).endedAt.getTime() - this.keepMs);
        await this.db.execute(
          sql`DELETE FROM chat_streams WHERE ended_at < ${cutoff.toISOString()}`,
        );
      }
    } catch (error) {
      log.warn({ err: error, streams: batch.length }, "Ended chat streams could not be recorded");
    }
  }
}
