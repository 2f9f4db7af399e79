import { problemFromError } from "@/server/errors";

/**
 * Server-sent events from an async iterable of `{ type, ...data }` events: each becomes
 * `event: <type>` with the rest as JSON `data`. The first event is awaited before the response
 * starts, so failures that come before it (not found, quota, overload) keep their own HTTP
 * status. A failure later in the stream is sent as an `error` event with problem details.
 */
export async function sseResponse<E extends { type: string }>(
  events: AsyncIterable<E>,
): Promise<Response> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
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
        if (next.done) controller.close();
        else controller.enqueue(eventFrame(next.value));
      } catch (error) {
        const problem = problemFromError(error);
        if (problem.code === "internal_error")
          console.error("Unexpected error in a stream:", error);
        controller.enqueue(frame("error", problem));
        controller.close();
      }
    },
    async cancel() {
      // The client went away: end the producer, so it can give back what it holds.
      await iterator.return?.();
    },
  });

  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store, no-transform",
      "x-accel-buffering": "no",
    },
  });
}
