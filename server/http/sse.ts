import { type Problem, problemFromError } from "@/server/frame/errors";
import { streamedResponse, type TextChunks } from "@/server/instance";
import { log } from "@/server/observability";

/** How events become the stream's text: chat's named events, or OpenAI's bare `data:` lines. */
export type EventFormat<E> = {
  /** An event's frame; undefined for one that only the response's headers use. */
  frame(event: E): string | undefined;
  failure(problem: Problem): string;
  /** A last frame after the last event (OpenAI's `data: [DONE]`). */
  end?: string;
};

export const namedEvents: EventFormat<{ type: string }> = {
  frame: ({ type, ...data }) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`,
  failure: (problem) => `event: error\ndata: ${JSON.stringify(problem)}\n\n`,
};

/**
 * Server-sent events from an async iterable, framed by `format`. The first event is awaited
 * before the response starts, so failures before it keep their own HTTP status; a later failure
 * is sent as an `error` event. The producer is stopped (its `finally` gives back what it holds)
 * on the frames' `return()` and on the request's abort signal: a client that closed while the
 * first event was awaited gets a response Next.js may never read or cancel, and the producer
 * would otherwise hold its model slot and quota reservation for ever.
 */
export async function sseResponse<E extends { type: string }>(
  events: AsyncIterable<E>,
  signal?: AbortSignal,
  /** Further response headers, from the first event (a chat's rate-limit standing). */
  headersOf: (first: E | undefined) => Record<string, string> = () => ({}),
  format: EventFormat<E> = namedEvents as EventFormat<E>,
): Promise<Response> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  let finished = first.done === true;
  const settle = () => {
    finished = true;
    signal?.removeEventListener("abort", stop);
  };
  const stop = () => {
    if (finished) return;
    settle();
    // A return() asked while a next() is pending runs once that next() settles.
    iterator.return?.().catch(() => {});
  };
  if (signal?.aborted) stop();
  else if (!finished) signal?.addEventListener("abort", stop, { once: true });

  // The frames to send before the next event is asked for: the first event's, or the end.
  const queued: string[] = [];
  let ended = first.done === true;
  if (first.done) {
    if (format.end) queued.push(format.end);
  } else {
    const framed = format.frame(first.value);
    if (framed !== undefined) queued.push(framed);
  }
  const frames: TextChunks = {
    async next() {
      for (;;) {
        const frame = queued.shift();
        if (frame !== undefined) return { value: frame, done: false };
        if (ended) return { value: undefined, done: true };
        try {
          // Until an event with a frame, or the end.
          const next = await iterator.next();
          if (next.done) {
            settle();
            ended = true;
            if (format.end) queued.push(format.end);
            continue;
          }
          const framed = format.frame(next.value);
          if (framed !== undefined) return { value: framed, done: false };
        } catch (error) {
          settle();
          ended = true;
          const problem = problemFromError(error);
          if (problem.code === "internal_error")
            log.error({ err: error }, "unexpected error in a stream");
          return { value: format.failure(problem), done: false };
        }
      }
    },
    async return() {
      ended = true;
      queued.length = 0;
      stop();
      return { value: undefined, done: true };
    },
  };

  return streamedResponse(frames, {
    headers: {
      ...headersOf(first.done ? undefined : first.value),
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store, no-transform",
      "x-accel-buffering": "no",
    },
  });
}
