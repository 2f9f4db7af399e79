import { setTimeout as sleep } from "node:timers/promises";
import { type Caller, callerScope } from "@/server/callers";
import type { DataContext } from "@/server/frame/data-context";
import { AppError, type Problem, problemFromError } from "@/server/frame/errors";
import { log } from "@/server/observability";
import { endedStreamsOf } from "./resume-batch";
import {
  abandonUnlessResumed,
  beginRecording,
  framesAfter,
  markResumed,
  recordFrames,
  type StreamKey,
  streamCallers,
} from "./resume-store";
import type { ChatEvent } from "./schema";

/**
 * Resumable streams of GET /{aid}/chat. Every event has an id, `<request id>/<n>`. The chat is
 * answered by a pump of its own, not by its client's connection: while the client stays, its
 * events go to it from memory and nothing is written. When it leaves before the end, the chat
 * goes on and is recorded in PostgreSQL (resume-store.ts) from its first event, so that the
 * client, reconnecting to any instance with `Last-Event-ID`, gets the rest and then the live
 * tail. No client back within CHAT_RESUME_S: the chat is stopped, its message given back, as
 * for a client that leaves for good; a reply done by then is stored in its thread and counted.
 */

const RECORD_MS = 100;
const BEAT_MS = 1_000;
const POLL_MS = 100;
const PAGE = 500;
/**
 * How long a resume waits for a stream its client just left to be recorded on its instance (which
 * must see the connection close, then write), and how many may wait at once in a process.
 */
const FIND_MS = 10_000;
const FINDING_MAX = 256;
let finding = 0;
/** A live stream whose instance has not beaten for this long has ended with it. */
const STALE_MS = 5_000;

export type ChatFrame = { type: string; frame: string };

type ResumeContext = DataContext & { config: { chat: { resumeMs: number } } };

const running = new Map<string, ChatStream>();
const keyOf = ({ caller, requestId }: StreamKey) => `${caller}\0${requestId}`;

export const eventIdOf = (requestId: string, seq: number) => `${requestId}/${seq}`;

/** A `Last-Event-ID` of a chat's stream, read back; undefined for anything else. */
export function parseEventId(text: string): { requestId: string; seq: number } | undefined {
  const at = text.lastIndexOf("/");
  const requestId = text.slice(0, at);
  const seq = Number(text.slice(at + 1));
  if (at <= 0 || !/^[A-Za-z0-9._:@-]{1,128}$/.test(requestId)) return undefined;
  return Number.isSafeInteger(seq) && seq >= 0 ? { requestId, seq } : undefined;
}

function frameOf(id: string, { type, ...data }: ChatEvent): string {
  return `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

function failureFrame(id: string, problem: Problem): string {
  return `id: ${id}\nevent: error\ndata: ${JSON.stringify(problem)}\n\n`;
}

/**
 * Begins answering `events` (a chat's, its first event already read) in a pump of its own; its
 * client reads `attached()`. `controller` stops the chat.
 */
export function startChatStream(
  ctx: ResumeContext,
  chat: { requestId: string; aid: string; caller: Caller },
  first: ChatEvent,
  events: AsyncGenerator<ChatEvent, void, undefined>,
  controller: AbortController,
): ChatStream {
  const stream = new ChatStream(
    ctx,
    { caller: callerScope(chat.caller), requestId: chat.requestId, aid: chat.aid },
    events,
    controller,
  );
  stream.push(first);
  running.set(keyOf(stream.key), stream);
  void stream.pump();
  return stream;
}

export class ChatStream {
  readonly frames: string[] = [];
  private ended = false;
  private recording: Promise<void> | undefined;
  private resumed = false;
  private readonly waiting = new Set<() => void>();

  constructor(
    private readonly ctx: ResumeContext,
    readonly key: StreamKey & { aid: string },
    private readonly source: AsyncGenerator<ChatEvent, void, undefined>,
    private readonly controller: AbortController,
  ) {}

  push(event: ChatEvent): void {
    this.frames.push(frameOf(eventIdOf(this.key.requestId, this.frames.length), event));
    this.wake();
  }

  async pump(): Promise<void> {
    try {
      for (;;) {
        const next = await this.source.next();
        if (next.done) break;
        this.push(next.value);
      }
    } catch (error) {
      const id = eventIdOf(this.key.requestId, this.frames.length);
      this.frames.push(failureFrame(id, problemFromError(error)));
    } finally {
      this.ended = true;
      this.wake();
      await this.recording;
      running.delete(keyOf(this.key));
    }
  }

  /**
   * The frames for the client that asked, from the first; its leaving before the end (the
   * iterator's `return`, at once even while a `next` waits for a frame) detaches.
   */
  attached(): AsyncGenerator<ChatFrame, void, undefined> {
    let sent = 0;
    let closed = false;
    const done = { value: undefined, done: true } as const;
    const iterator: AsyncGenerator<ChatFrame, void, undefined> = {
      next: async () => {
        for (;;) {
          if (closed) return done;
          if (sent < this.frames.length)
            return { value: { type: "frame", frame: this.frames[sent++] as string }, done: false };
          if (this.ended) {
            closed = true;
            this.recordEnded();
            return done;
          }
          await this.changed();
        }
      },
      return: async () => {
        if (!closed) {
          closed = true;
          // Left before the end: resumable from now on. Left once every frame was handed over
          // (perhaps not read): recorded as any stream that ended.
          if (!this.ended || sent < this.frames.length) this.detach();
          else this.recordEnded();
          this.wake();
        }
        return done;
      },
      throw: async (error: unknown) => {
        await iterator.return();
        throw error;
      },
      [Symbol.asyncIterator]: () => iterator,
      [Symbol.asyncDispose]: async () => {
        await iterator.return();
      },
    };
    return iterator;
  }

  /** Every frame was sent: recorded all the same, in a batch, for a client that did not read them. */
  private recordEnded(): void {
    const { db, clock, config } = this.ctx;
    if (this.recording || config.chat.resumeMs === 0) return;
    endedStreamsOf(db, config.chat.resumeMs).add({
      ...this.key,
      frames: this.frames,
      endedAt: clock.now(),
    });
  }

  /** The client left: record the stream for it to resume, or stop it if it may not. */
  private detach(): void {
    if (this.recording || this.ended) {
      if (!this.recording && this.ctx.config.chat.resumeMs > 0) this.recording = this.record();
      return;
    }
    if (this.ctx.config.chat.resumeMs === 0) {
      this.controller.abort(clientLeft());
      return;
    }
    this.recording = this.record();
  }

  private async record(): Promise<void> {
    const { db, clock } = this.ctx;
    const keepMs = this.ctx.config.chat.resumeMs;
    try {
      const now = clock.now();
      let written = this.frames.length;
      await beginRecording(db, this.key, this.frames.slice(0, written), {
        now,
        graceUntil: new Date(now.getTime() + keepMs),
        keepMs,
        status: this.ended ? "ended" : "live",
      });
      const graceEnds = Date.now() + keepMs;
      let beaten = Date.now();
      while (!this.ended) {
        await sleep(RECORD_MS);
        const upTo = this.frames.length;
        // New frames, or a beat a second: a follower elsewhere tells a live stream by it.
        if (upTo > written || Date.now() - beaten >= BEAT_MS) {
          await recordFrames(db, this.key, this.frames, written, { now: clock.now() });
          written = upTo;
          beaten = Date.now();
        }
        if (!this.resumed && Date.now() >= graceEnds && !this.ended) {
          // One statement decides against a resume racing it; then the chat is stopped.
          if (await abandonUnlessResumed(db, this.key)) this.controller.abort(clientLeft());
          else this.resumed = true;
        }
      }
      await recordFrames(db, this.key, this.frames, written, {
        now: clock.now(),
        status: this.controller.signal.aborted && !this.resumed ? "abandoned" : "ended",
      });
    } catch (error) {
      // Unrecorded, the stream cannot be resumed; the chat itself ends as it would.
      log.warn({ err: error }, "A chat's stream could not be recorded for its client to resume");
    }
  }

  /** Resumed in this process: the frames after `after`, then the rest as they come. */
  async *resume(after: number, signal: AbortSignal): AsyncGenerator<ChatFrame, void, undefined> {
    this.resumed = true;
    await markResumed(this.ctx.db, this.key, this.ctx.clock.now()).catch(() => false);
    let sent = after + 1;
    const onAbort = () => this.wake();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      while (!signal.aborted) {
        while (sent < this.frames.length)
          yield { type: "frame", frame: this.frames[sent++] as string };
        if (this.ended) return;
        await this.changed();
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  private wake(): void {
    for (const resolve of this.waiting) resolve();
    this.waiting.clear();
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.waiting.add(resolve));
  }
}

const clientLeft = () =>
  new AppError(
    "client_closed_request",
    "The client left the stream and did not resume it within CHAT_RESUME_S.",
  );

/**
 * GET /{aid}/chat with `Last-Event-ID`: the frames after it, then the live tail, from this
 * process's memory or from the recording, wherever the chat is answered. Only its caller's.
 */
export async function resumeChatStream(
  ctx: ResumeContext & { caller: Caller },
  { aid, lastEventId }: { aid: string; lastEventId: { requestId: string; seq: number } },
  signal: AbortSignal,
): Promise<AsyncGenerator<ChatFrame, void, undefined>> {
  const key = { caller: callerScope(ctx.caller), requestId: lastEventId.requestId };
  const here = running.get(keyOf(key));
  if (here && here.key.aid === aid) return here.resume(lastEventId.seq, signal);
  // Just left on another instance: its recording may be a moment away. Another caller's is
  // refused at once; an id that names nothing, once the wait is over.
  if (finding >= FINDING_MAX)
    throw new AppError(
      "service_unavailable",
      `This instance already looks for ${FINDING_MAX} streams to resume; try again in a moment.`,
      { retryAfterS: 1 },
    );
  finding += 1;
  try {
    const deadline = Date.now() + FIND_MS;
    for (;;) {
      const callers = await streamCallers(ctx.db, key.requestId);
      if (callers.includes(key.caller)) break;
      if (callers.length > 0 || Date.now() > deadline || signal.aborted)
        throw streamNotFound(aid, lastEventId.requestId);
      await sleep(POLL_MS);
    }
  } finally {
    finding -= 1;
  }
  await markResumed(ctx.db, key, ctx.clock.now());
  return recorded(ctx, key, lastEventId.seq, signal);
}

async function* recorded(
  { db }: DataContext,
  key: StreamKey,
  after: number,
  signal: AbortSignal,
): AsyncGenerator<ChatFrame, void, undefined> {
  let last = after;
  while (!signal.aborted) {
    const { stream, frames } = await framesAfter(db, key, last, PAGE);
    for (const { seq, frame } of frames) {
      last = seq;
      yield { type: "frame", frame };
    }
    if (frames.length === PAGE) continue;
    // Ended (its last frames were written before its end), or gone with its instance.
    if (!stream || stream.endedAt) return;
    if (Date.now() - stream.heartbeatAt.getTime() > STALE_MS) {
      const problem = problemFromError(
        new AppError(
          "service_unavailable",
          "The instance answering this chat stopped before its end; ask again.",
          { retryAfterS: 1 },
        ),
      );
      yield { type: "frame", frame: failureFrame(eventIdOf(key.requestId, last + 1), problem) };
      return;
    }
    await sleep(POLL_MS, undefined, { signal }).catch(() => {});
  }
}

function streamNotFound(aid: string, requestId: string): AppError {
  return new AppError(
    "not_found",
    `No stream of agent '${aid}' with request id '${requestId}' can be resumed for you: it ended more than CHAT_RESUME_S ago, was never left, or is another caller's.`,
  );
}
