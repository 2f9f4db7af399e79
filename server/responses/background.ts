import { problemFromError } from "@/server/frame/errors";
import { settlesWithin } from "@/server/kit/settles-within";
import { log } from "@/server/observability";
import { endResponse, type RecordedEvent, recordEvents } from "./lifecycle";
import {
  beginningRow,
  eventsOf,
  type Prepared,
  prepare,
  preparedChat,
  type ResponseContext,
  type ResponseEvent,
  type ResponseResult,
  responseOf,
} from "./responses";
import type { ResponseObject, ResponseRequest } from "./schema";
import { keepResponse } from "./store";

/**
 * `background: true`: the response is answered on after its request ends, in this process, its
 * events numbered, kept in memory for the requests that follow it here and written to the
 * database every FLUSH_MS for those on other instances. Each write is also the heartbeat, and
 * reads the cancel flag any instance may set. It counts once, however many clients follow it.
 */

/** How often events are written (and a cancel seen) while they come. */
const FLUSH_MS = 100;
/** How often a response with no new events beats (and sees a cancel). */
const BEAT_MS = 250;

/** An event as it is sent: its type, its number, and its JSON, made once. */
export type NumberedEvent = { type: string; sequence_number: number; json: string };

type Reply = { text: string; usage: { input_tokens: number; output_tokens: number } };

const running = new Map<string, BackgroundRun>();

/**
 * Begins a background response: answers once its chat has opened (a refusal is the request's
 * error, and keeps nothing), with the response in progress and the run to follow.
 */
export async function beginBackgroundResponse(
  ctx: ResponseContext,
  request: ResponseRequest,
): Promise<ResponseResult & { run: BackgroundRun }> {
  return beginBackground(ctx, await prepare(ctx, request));
}

/** GET /{aid}/chat with `Prefer: respond-async`: the chat begun as a background response. */
export function beginBackgroundChat(
  ctx: ResponseContext,
  input: { aid: string; q: string; chat_id: string },
): Promise<ResponseResult & { run: BackgroundRun }> {
  return beginBackground(ctx, preparedChat(ctx, input));
}

async function beginBackground(
  ctx: ResponseContext,
  prepared: Prepared,
): Promise<ResponseResult & { run: BackgroundRun }> {
  const controller = new AbortController();
  const events = eventsOf(ctx, prepared, controller.signal);
  const first = await events.next();
  if (first.done || first.value.type !== "start")
    throw new Error("A background response's chat ended before it began.");
  const rateLimit = first.value.rate_limit;
  try {
    await keepResponse(ctx, beginningRow(prepared, ctx.clock.now()));
  } catch (error) {
    // Ended, the chat gives back its message.
    await events.return(undefined);
    throw error;
  }
  const run = new BackgroundRun(ctx, prepared, events, controller);
  running.set(prepared.id, run);
  void run.pump();
  return {
    response: responseOf(prepared, "in_progress", [], null),
    rate_limit: rateLimit as ResponseResult["rate_limit"],
    run,
  };
}

/** The run of a response answered in this process, if it is still running. */
export function runningHere(id: string): BackgroundRun | undefined {
  return running.get(id);
}

/**
 * Waits for this process's background responses to end, up to `ms`; those still running then are
 * stopped and failed. True if all ended by themselves.
 */
export async function backgroundResponsesDrained(ms: number): Promise<boolean> {
  const all = () => Promise.all([...running.values()].map((run) => run.ended));
  if (await settlesWithin(all(), ms)) return true;
  for (const run of running.values()) run.stop();
  await settlesWithin(all(), 2_000);
  return false;
}

export class BackgroundRun {
  readonly ended: Promise<void>;
  private readonly events: NumberedEvent[] = [];
  private unwritten: RecordedEvent[] = [];
  private waiting = new Set<() => void>();
  private writing: Promise<void> = Promise.resolve();
  private lastWrite = 0;
  private done = false;
  private stopped = false;
  private reply: Reply | undefined;
  private endNow: () => void = () => {};

  constructor(
    private readonly ctx: ResponseContext,
    private readonly prepared: Prepared,
    private readonly source: AsyncGenerator<ResponseEvent, void, undefined>,
    private readonly controller: AbortController,
  ) {
    this.ended = new Promise((resolve) => {
      this.endNow = resolve;
    });
  }

  /** Stops the model call: the response ends cancelled (or failed, when the process stops). */
  cancel(): void {
    this.controller.abort();
  }

  stop(): void {
    this.stopped = true;
    this.controller.abort();
  }

  /** The events after `after`, as they come, to the end (or until `signal`). */
  async *follow(after: number, signal: AbortSignal): AsyncGenerator<NumberedEvent> {
    let next = after + 1;
    while (!signal.aborted) {
      while (next < this.events.length) yield this.events[next++] as NumberedEvent;
      if (this.done) return;
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiting.delete(wake);
          signal.removeEventListener("abort", wake);
          resolve();
        };
        this.waiting.add(wake);
        signal.addEventListener("abort", wake, { once: true });
      });
    }
  }

  async pump(): Promise<void> {
    const { db, clock } = this.ctx;
    const timer = setInterval(() => {
      const idle = this.unwritten.length === 0;
      if (!idle || Date.now() - this.lastWrite >= BEAT_MS) void this.write();
    }, FLUSH_MS);
    let ending: { status: "completed" | "failed" | "cancelled"; error: ErrorView } = {
      status: "completed",
      error: null,
    };
    try {
      for await (const event of this.source) this.add(event);
    } catch (error) {
      if (this.controller.signal.aborted && !this.stopped)
        ending = { status: "cancelled", error: null };
      else {
        const problem = problemFromError(error);
        const failure = this.stopped
          ? { code: "server_error", message: "The instance stopped before it ended; ask again." }
          : { code: problem.code, message: problem.detail };
        ending = { status: "failed", error: failure };
        this.add({
          type: "response.failed",
          response: responseOf(this.prepared, "failed", [], null, failure),
        });
      }
    } finally {
      clearInterval(timer);
    }
    // The last events are written before the status, so a reader that sees it has them all.
    for (let attempt = 0; attempt < 20; attempt += 1) {
      await this.write();
      if (this.unwritten.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    try {
      await endResponse(db, this.prepared.id, {
        status: ending.status,
        now: clock.now(),
        error: ending.error,
        reply: ending.status === "completed" ? this.reply : undefined,
      });
    } catch (error) {
      log.error(
        { err: error },
        "A background response's end could not be written; it fails when swept",
      );
    }
    this.done = true;
    this.wake();
    running.delete(this.prepared.id);
    this.endNow();
  }

  private add(event: ResponseEvent): void {
    const { type, ...data } = event;
    if (type === "start") return;
    const sequence = this.events.length;
    const json = JSON.stringify({ type, sequence_number: sequence, ...data });
    this.events.push({ type, sequence_number: sequence, json });
    this.unwritten.push({ seq: sequence, data: json });
    if (type === "response.completed")
      this.reply = replyOf((data as { response: ResponseObject }).response);
    this.wake();
  }

  private wake(): void {
    for (const wake of [...this.waiting]) wake();
  }

  /** Writes what is unwritten, one write at a time; a cancel asked for stops the model call. */
  private write(): Promise<void> {
    this.writing = this.writing.then(async () => {
      const batch = this.unwritten;
      this.unwritten = [];
      this.lastWrite = Date.now();
      try {
        const cancel = await recordEvents(
          this.ctx.db,
          this.prepared.id,
          batch,
          this.ctx.clock.now(),
        );
        if (cancel && !this.controller.signal.aborted) this.controller.abort();
      } catch (error) {
        this.unwritten = [...batch, ...this.unwritten];
        log.warn(
          { err: error },
          "A background response's events could not be written; trying again",
        );
      }
    });
    return this.writing;
  }
}

type ErrorView = { code: string; message: string } | null;

/** The reply a completed response carries, kept in its row with its status. */
function replyOf(response: ResponseObject): Reply {
  return {
    text: response.output[0]?.type === "message" ? (response.output[0].content[0]?.text ?? "") : "",
    usage: {
      input_tokens: response.usage?.input_tokens ?? 0,
      output_tokens: response.usage?.output_tokens ?? 0,
    },
  };
}
