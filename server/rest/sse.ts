import { problemFromError } from "@/server/errors";
import { log } from "@/server/observability";

/**
 * Server-sent events from an async iterable of `{ type, ...data }` events: each becomes
 * `event: <type>` with the rest as JSON `data`. The first event is awaited before the response
 * starts, so failures that come before it (not found, quota, overload) keep their own HTTP
 * status. A failure later in the stream is sent as an `error` event with problem details.
 *
 * The producer is stopped (`return()`, so its `finally` gives back what it holds) when the
 * client goes: on the body's cancel, and on the request's abort signal. The signal matters: a
 * client that closed while the first event was awaited gets a response Next.js may never read
 * or cancel, which left the producer suspended at its first `yield` for ever, holding a model
 * slot and a quota reservation.
 */
export async function sseResponse<E extends { type: string }>(
  events: AsyncIterable<E>,
  signal?: AbortSignal,
  /** Further response headers, from the first event (a chat's rate-limit standing). */
  headersOf: (first: E | undefined) => Record<string, string> = () => ({}),
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

  const encoder = new TextEncoder();
  const frame = (event: string, data: unknown) =>
    encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const eventFrame = ({ type, ...data }: E) => frame(type, data);

  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.done) controller.close();
      else controller.enqueue(eventFrame(first.value));
    },
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) {
          settle();
          controller.close();
        } else controller.enqueue(eventFrame(next.value));
      } catch (error) {
        settle();
        const problem = problemFromError(error);
        if (problem.code === "internal_error")
          log.error({ err: error }, "unexpected error in a stream");
        controller.enqueue(frame("error", problem));
        controller.close();
      }
    },
    cancel: stop,
  });

  return new Response(stream, {
    headers: {
      ...headersOf(first.done ? undefined : first.value),
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store, no-transform",
      "x-accel-buffering": "no",
    },
  });
}
