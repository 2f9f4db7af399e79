/**
 * What passes between the REST handlers, in Next.js's bundle, and the server entry outside it
 * (server/instance/rest-routes.ts): registered symbols, so that both name the same ones.
 */

/**
 * What the entry may call ahead of Next.js's request handler, on the handlers Next.js calls:
 * the REST route handlers (server/rest/route.ts) carry the REST dispatch, and nothing else does.
 */
export const SERVED_DIRECTLY: unique symbol = Symbol.for("agent-service.served-directly");

/**
 * A response's body carried beside an empty Web body: its whole text (`textResponse`) or its
 * text chunks as they come (`streamedResponse`). Making undici's body stream was most of what a
 * Response cost, so the entry writes the body itself, and only an answer that leaves for
 * Next.js is given its Web body (`withBody`).
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

/**
 * A handler for Next.js, whose answers have their Web bodies, carrying `direct` for the entry,
 * whose answers may carry their text instead.
 */
export function servedDirectly<H extends Handler>(handler: H, direct: unknown): H {
  const forNextJs = (async (...args: Parameters<H>) => withBody(await handler(...args))) as H;
  Object.defineProperty(forNextJs, SERVED_DIRECTLY, { value: direct });
  return forNextJs;
}

/** What a response carries as its body: its whole text, or its chunks. */
export type CarriedBody = string | TextChunks;

/** A response whose body is `text`, for the entry to write and `withBody` to give Next.js. */
export function textResponse(text: string, init: ResponseInit): Response {
  return carrying(text, init);
}

/** A response whose body is `chunks`, for the entry to write and `withBody` to give Next.js. */
export function streamedResponse(chunks: TextChunks, init: ResponseInit): Response {
  return carrying(chunks, init);
}

function carrying(body: CarriedBody, init: ResponseInit): Response {
  const response = new Response(null, init);
  Object.defineProperty(response, CARRIED_BODY, { value: body });
  return response;
}

/** The body a response carries (`textResponse`, `streamedResponse`), if it does. */
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

/**
 * Marks an answer whose work goes on when its client leaves (a background response's stream):
 * what was sent is then its answer, not a piece of one given up (server/idempotency).
 */
const OUTLIVES_CLIENT: unique symbol = Symbol.for("agent-service.outlives-client");

export function outlivingItsClient(response: Response): Response {
  Object.defineProperty(response, OUTLIVES_CLIENT, { value: true });
  return response;
}

export function outlivesItsClient(response: Response): boolean {
  return (response as Response & { [OUTLIVES_CLIENT]?: true })[OUTLIVES_CLIENT] === true;
}
