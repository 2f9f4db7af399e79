/**
 * What passes between the REST handlers, in Next.js's bundle, and the server entry outside it
 * (server/instance/rest-routes.ts): registered symbols, so that both name the same ones.
 */

/**
 * The handler the entry may call ahead of Next.js's request handler, on the one Next.js calls:
 * the REST handlers made from the endpoint table (server/rest/route.ts) carry it, and nothing
 * else does.
 */
export const SERVED_DIRECTLY: unique symbol = Symbol.for("agent-service.served-directly");

/**
 * A response's whole body as text, carried beside an empty Web body (`textResponse`). Making
 * undici's body stream was most of what a Response cost, 13–27 µs for a short text against 2
 * without a body (BENCHMARKS.md), and the entry writes the text itself; only an answer that
 * leaves for Next.js is given its Web body (`withBody`).
 */
export const TEXT_BODY: unique symbol = Symbol.for("agent-service.text-body");

/**
 * A response's body as text chunks, carried beside an empty Web body (`streamedResponse`): the
 * entry writes each chunk as it comes, where a Web stream cost each chunk an encoding, a queue
 * and a read; only an answer that leaves for Next.js is given its Web stream (`withBody`).
 */
export const STREAMED_BODY: unique symbol = Symbol.for("agent-service.streamed-body");

/**
 * Text chunks: `next()` gives the next one (never two calls at once), `return()` stops the
 * producer at once, also while a `next()` is pending (the client left).
 */
export type TextChunks = {
  next(): Promise<IteratorResult<string, undefined>>;
  return(): Promise<IteratorResult<string, undefined>>;
};

type Handler = (...args: never[]) => Promise<Response>;

/**
 * A handler for Next.js, whose answers have their Web bodies, carrying `handler` itself for the
 * entry, whose answers may carry their text instead.
 */
export function servedDirectly<H extends Handler>(handler: H): H {
  const forNextJs = (async (...args: Parameters<H>) => withBody(await handler(...args))) as H;
  Object.defineProperty(forNextJs, SERVED_DIRECTLY, { value: handler });
  return forNextJs;
}

/** A response whose body is `text`, for the entry to write and `withBody` to give Next.js. */
export function textResponse(text: string, init: ResponseInit): Response {
  const response = new Response(null, init);
  Object.defineProperty(response, TEXT_BODY, { value: text });
  return response;
}

/** The text a response carries as its body (`textResponse`), if it does. */
export function textBodyOf(response: Response): string | undefined {
  return (response as Response & { [TEXT_BODY]?: string })[TEXT_BODY];
}

/** A response whose body is `chunks`, for the entry to write and `withBody` to give Next.js. */
export function streamedResponse(chunks: TextChunks, init: ResponseInit): Response {
  const response = new Response(null, init);
  Object.defineProperty(response, STREAMED_BODY, { value: chunks });
  return response;
}

/** The chunks a response carries as its body (`streamedResponse`), if it does. */
export function chunksOf(response: Response): TextChunks | undefined {
  return (response as Response & { [STREAMED_BODY]?: TextChunks })[STREAMED_BODY];
}

/** The response with its Web body, for anything but the entry to read or send. */
export function withBody(response: Response): Response {
  const text = textBodyOf(response);
  const chunks = chunksOf(response);
  if (text === undefined && chunks === undefined) return response;
  const init = {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  };
  if (text !== undefined) return new Response(text, init);
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await (chunks as TextChunks).next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await (chunks as TextChunks).return();
    },
  });
  return new Response(stream, init);
}
