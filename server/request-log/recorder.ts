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
  /** The agent's model endpoint that answered; absent or null for the configured provider. */
  endpoint?: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost: number | null;
  request_id: string | null;
  /**
   * The client's keyed address hash: refusals naming no agent are sampled per client
   * (insertEntries), by the caller when absent. Not stored.
   */
  client?: string;
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

  // The rows buffered when the write starts, and then only full batches: rows that come during a
  // write wait for their own batch, or the inserts would follow each other a few rows at a time.
  private async write(): Promise<void> {
    let left = this.buffer.length;
    while (left > 0 || this.buffer.length >= BATCH_ROWS) {
      const batch = this.buffer.splice(0, BATCH_ROWS);
      left = Math.max(0, left - batch.length);
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
    this.schedule();
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

/** Refusals naming no agent a client has logged one by one in an hour. */
export const EXACT_PER_CLIENT = 100;
/** Such refusals logged one by one in an hour, all clients together. */
export const EXACT_OVERALL = 10_000;

/**
 * One statement for a batch. A refusal whose aid names no agent (looked up as it is written) is
 * counted in its client's hour and in everyone's (request_log_missing_agent, taken in one order
 * so that no two batches deadlock), and kept by the coarser of two rules, as an entry standing
 * for the refusals since the one kept before it (`stands_for`):
 * - its client's: the first EXACT_PER_CLIENT, then every 10th up to 1,000, every 100th up to
 *   10,000, and so on: 90 entries for each tenfold more;
 * - everyone's: the first EXACT_OVERALL, then every 100th up to 100,000, every 1,000th up to
 *   1,000,000, and so on: 900 for each tenfold more, however many addresses send them.
 * Every other entry is inserted as it is.
 */
function insertEntries(db: Db, entries: RequestEntry[]) {
  if (entries.every((entry) => entry.status === 200)) return insertReplies(db, entries);
  const hour = sql.raw("date_trunc('hour', started_at, 'UTC')");
  return db.execute(sql`WITH batch AS MATERIALIZED (
      SELECT r.*, row_number() OVER () AS n,
        r.status <> 200 AND NOT EXISTS (SELECT 1 FROM agents a WHERE a.aid = r.aid) AS unknown
      FROM json_to_recordset(${JSON.stringify(entries)}::json) AS r(${ENTRY_COLUMNS}, client text)
    ), missed AS MATERIALIZED (
      SELECT n, coalesce(client, caller) AS client, ${hour} AS hour,
        row_number() OVER (PARTITION BY coalesce(client, caller), ${hour} ORDER BY n) AS nth,
        count(*) OVER (PARTITION BY coalesce(client, caller), ${hour}) AS count,
        row_number() OVER (PARTITION BY ${hour} ORDER BY n) AS nth_overall,
        count(*) OVER (PARTITION BY ${hour}) AS count_overall
      FROM batch WHERE unknown
    ), counted AS (
      INSERT INTO request_log_missing_agent AS c (client, hour, refusals)
      SELECT client, hour, refusals FROM (
        SELECT client, hour, max(count) AS refusals FROM missed GROUP BY client, hour
        UNION ALL
        SELECT '', hour, max(count_overall) FROM missed GROUP BY hour
      ) AS counts
      ORDER BY hour, client
      ON CONFLICT (client, hour) DO UPDATE SET refusals = c.refusals + excluded.refusals
      RETURNING client, hour, refusals
    ), placed AS (
      SELECT m.n, own.refusals - m.count + m.nth AS own,
        overall.refusals - m.count_overall + m.nth_overall AS overall
      FROM missed m
      JOIN counted own ON own.client = m.client AND own.hour = m.hour
      JOIN counted overall ON overall.client = '' AND overall.hour = m.hour
    ), stepped AS (
      SELECT n, own, overall,
        CASE WHEN own > ${sql.raw(String(EXACT_PER_CLIENT))}
          THEN (10 ^ (length((own - 1)::text) - 2))::bigint ELSE 1 END AS own_step,
        CASE WHEN overall > ${sql.raw(String(EXACT_OVERALL))}
          THEN (10 ^ (length((overall - 1)::text) - 3))::bigint ELSE 1 END AS overall_step
      FROM placed
    ), kept AS (
      SELECT n, greatest(own_step, overall_step) AS step FROM stepped
      WHERE CASE WHEN own_step >= overall_step THEN own % own_step = 0
        ELSE overall % overall_step = 0 END
    )
    INSERT INTO request_log (started_at, via, aid, caller, chat_id, status, code, latency_ms,
      model, endpoint, input_tokens, output_tokens, cost, request_id, stands_for, unknown_agent)
    SELECT b.started_at, b.via, b.aid, b.caller, b.chat_id, b.status, b.code, b.latency_ms,
      b.model, b.endpoint, b.input_tokens, b.output_tokens, b.cost, b.request_id, coalesce(k.step, 1),
      b.unknown
    FROM batch b LEFT JOIN kept k ON k.n = b.n
    WHERE NOT b.unknown OR k.n IS NOT NULL`);
}

const ENTRY_COLUMNS = sql.raw(`started_at timestamptz, via text, aid text, caller text,
  chat_id text, status integer, code text, latency_ms integer, model text, endpoint text,
  input_tokens integer, output_tokens integer, cost numeric, request_id text`);

/**
 * A batch of replies only, the usual one: no entry can name a missing agent, so none is sampled,
 * and a plain INSERT keeps one generic plan where insertEntries' statement is planned each time.
 */
function insertReplies(db: Db, entries: RequestEntry[]) {
  return db.execute(sql`INSERT INTO request_log (started_at, via, aid, caller, chat_id, status,
      code, latency_ms, model, endpoint, input_tokens, output_tokens, cost, request_id,
      stands_for, unknown_agent)
    SELECT started_at, via, aid, caller, chat_id, status, code, latency_ms, model, endpoint,
      input_tokens, output_tokens, cost, request_id, 1, false
    FROM json_to_recordset(${JSON.stringify(entries)}::json) AS r(${ENTRY_COLUMNS})`);
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
