// What passes between the REST handlers in Next.js's bundle and the server entry outside it:
// registered symbols, so that both name the same ones.

/** Marks the REST handlers the entry may call ahead of Next.js's request handler. */
export const SERVED_DIRECTLY: unique symbol = Symbol.for("agent-service.served-directly");

/**
 * A response's body carried beside an empty Web body, as whole text or as text chunks: making
 * undici's body stream is most of what a Response costs, and a Web stream costs each chunk an
 * encoding, a queue and a read. Only an answer that leaves for Next.js is given its Web body.
 */
const CARRIED_BODY: unique symbol = Symbol.for("agent-service.carried-body");

/**
 * Text chunks: `next()` gives the next one (never two calls at once), `return()` stops the
 * producer at once, also while a `next()` is pending (the client left).
 */
export type TextChunks = {
  next(): Promise<IteratorResult<string, undefined>>;
  return(): Promise<IteratorResult<string, undefined>>;
};

type Handler = (...args: never[]) => Promise<Response>;

/** For Next.js, a handler whose answers have Web bodies; it carries `handler` for the entry. */
export function servedDirectly<H extends Handler>(handler: H): H {
  const forNextJs = (async (...args: Parameters<H>) => withBody(await handler(...args))) as H;
  Object.defineProperty(forNextJs, SERVED_DIRECTLY, { value: handler });
  return forNextJs;
}

export type CarriedBody = string | TextChunks;

/** A response whose body is `text`, for the entry to write and `withBody` to give Next.js. */
export function textResponse(text: string, init: ResponseInit): Response {
  return carrying(text, init);
}

export function streamedResponse(chunks: TextChunks, init: ResponseInit): Response {
  return carrying(chunks, init);
}

function carrying(body: CarriedBody, init: ResponseInit): Response {
  const response = new Response(null, init);
  Object.defineProperty(response, CARRIED_BODY, { value: body });
  return response;
}

export function carriedBody(response: Response): CarriedBody | undefined {
  return (response as Response & { [CARRIED_BODY]?: CarriedBody })[CARRIED_BODY];
}

/** The response with its Web body, for anything but the entry to read or send. */
export function withBody(response: Response): Response {
  const carried = carriedBody(response);
  if (carried === undefined) return response;
  const init = {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  };
  if (typeof carried === "string") return new Response(carried, init);
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await carried.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await carried.return();
    },
  });
  return new Response(stream, init);
}
