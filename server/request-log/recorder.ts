import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import type { RequestVia } from "@/db/enums";
import { codesOf, isDatabaseUnavailable } from "@/db/failures";
import type { Config } from "@/server/frame/config";
import { log, metrics } from "@/server/observability";

/**
 * Writing the request log off the chat's path: a chat's end pushes its row onto this process's
 * buffer, written in one statement (a multi-row INSERT from one JSON parameter, one SQL text)
 * within FLUSH_MS or at BATCH_ROWS. A kill -9 loses what the buffer held. During an outage rows
 * stay buffered up to MAX_BUFFERED, then are dropped and counted, so memory stays bounded.
 */

/** A chat request as logged (the columns of `request_log`, as the INSERT's JSON names them). */
export type RequestEntry = {
  started_at: Date;
  via: RequestVia;
  aid: string;
  caller: string;
  chat_id: string;
  status: number;
  code: string | null;
  latency_ms: number;
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost: number | null;
  request_id: string | null;
};

const FLUSH_MS = 1000;
const BATCH_ROWS = 500;
export const MAX_BUFFERED = 20_000;

export class RequestLog {
  private readonly db: Db;
  private buffer: RequestEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The write in progress, or the last one: writes run one after another. */
  private writing: Promise<void> = Promise.resolve();
  private failing = false;
  private closed = false;

  constructor(db: Db) {
    this.db = db;
  }

  get pending(): number {
    return this.buffer.length;
  }

  record(entry: RequestEntry): void {
    if (this.closed) return;
    if (this.buffer.length >= MAX_BUFFERED) {
      metrics.requestLogDropped.inc({ reason: "full" });
      return;
    }
    this.buffer.push(entry);
    if (this.buffer.length === BATCH_ROWS) void this.flush();
    else this.schedule();
  }

  /** Writes what is buffered now (after any write in progress); never rejects. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  /** At shutdown, before the database closes: one last write, after which rows are lost. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private schedule(): void {
    if (this.closed || this.timer !== undefined || this.buffer.length === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, FLUSH_MS);
    // Pending rows never keep a process alive: shutdown writes them (server/frame/shutdown.ts).
    this.timer.unref();
  }

  private async write(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, BATCH_ROWS);
      try {
        await insertEntries(this.db, batch);
        if (this.failing) {
          this.failing = false;
          log.info("Request log: the database takes rows again.");
        }
      } catch (error) {
        if (!isDatabaseUnavailable(error)) {
          // Not an outage (no retry would help): the batch is given up, not the next ones.
          metrics.requestLogDropped.inc({ reason: "refused" }, batch.length);
          log.error(
            { ...failureOf(error), rows: batch.length },
            "Request log: rows refused; dropped.",
          );
          continue;
        }
        // Kept, oldest first, within the bound; tried again in a second.
        const kept = batch.slice(0, Math.max(0, MAX_BUFFERED - this.buffer.length));
        if (kept.length < batch.length)
          metrics.requestLogDropped.inc({ reason: "full" }, batch.length - kept.length);
        this.buffer = [...kept, ...this.buffer];
        if (!this.failing) {
          this.failing = true;
          log.warn(
            { ...failureOf(error), rows: this.buffer.length },
            "Request log: the database is unavailable; rows are kept and tried again each second.",
          );
        }
        this.schedule();
        return;
      }
    }
  }
}

/**
 * Why a write failed, for the log line: the driver's message and codes, never the error itself,
 * whose message (drizzle's) and fields (postgres.js's) carry the whole batch as parameters.
 */
function failureOf(error: unknown): { reason: string; codes: string[] } {
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  return { reason: cause instanceof Error ? cause.message : String(cause), codes: codesOf(error) };
}

function insertEntries(db: Db, entries: RequestEntry[]) {
  return db.execute(sql`INSERT INTO request_log (started_at, via, aid, caller, chat_id, status,
      code, latency_ms, model, input_tokens, output_tokens, cost, request_id)
    SELECT started_at, via, aid, caller, chat_id, status, code, latency_ms, model, input_tokens,
      output_tokens, cost, request_id
    FROM json_to_recordset(${JSON.stringify(entries)}::json) AS r(started_at timestamptz,
      via text, aid text, caller text, chat_id text, status integer, code text,
      latency_ms integer, model text, input_tokens integer, output_tokens integer, cost numeric,
      request_id text)`);
}

/**
 * One request log per process and database handle, on globalThis: Next.js may load this module in
 * more than one chunk, and the route handlers' log must be the one shutdown writes.
 */
export function requestLogOf(db: Db): RequestLog {
  const global = globalThis as unknown as { agentRequestLogs?: WeakMap<Db, RequestLog> };
  global.agentRequestLogs ??= new WeakMap();
  let found = global.agentRequestLogs.get(db);
  if (!found) {
    found = new RequestLog(db);
    global.agentRequestLogs.set(db, found);
  }
  return found;
}

export function recordRequest(
  { db, config }: { db: Db; config: Pick<Config, "requestLogDays"> },
  entry: RequestEntry,
): void {
  if (config.requestLogDays > 0) requestLogOf(db).record(entry);
}
