import type { IncomingMessage, ServerResponse } from "node:http";
import { carriedBody } from "./marks.ts";

// Between Node.js's HTTP objects and the route handlers' Web `Request` and `Response`: what
// Next.js does around a route handler, without its routing, async-storage scopes and streams pipe.

const NO_BODY = new Set(["GET", "HEAD"]);

/** Its signal aborts when the client goes before the answer is written, as under Next.js. */
export function webRequest(request: IncomingMessage, origin: string, signal: AbortSignal): Request {
  const method = request.method ?? "GET";
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.append(name, value);
  }
  const hasBody =
    !NO_BODY.has(method) &&
    (request.headers["transfer-encoding"] !== undefined ||
      (request.headers["content-length"] !== undefined &&
        request.headers["content-length"] !== "0"));
  const made = new Request(origin + (request.url ?? "/"), {
    method,
    headers,
    // The body is read as it arrives, within the handler's own bound (server/rest/request.ts).
    ...(hasBody ? { body: request as unknown as AsyncIterable<Uint8Array>, duplex: "half" } : {}),
  } as RequestInit);
  // The client's signal itself: a `signal` in the init would get one that follows it, which undici
  // makes with a controller, a weak reference, a listener and a finalizer per request. The handlers
  // only read `request.signal`; none clones the request.
  Object.defineProperty(made, "signal", { value: signal, enumerable: true });
  return made;
}

/** Writes a handler's `Response`: carried text in one write, chunks as the socket drains. */
export async function sendWebResponse(
  response: Response,
  to: ServerResponse,
  method: string,
): Promise<void> {
  to.statusCode = response.status;
  for (const [name, value] of response.headers) {
    if (name !== "set-cookie") to.setHeader(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) to.setHeader("set-cookie", cookies);

  const carried = carriedBody(response);
  if (typeof carried === "string") {
    if (method === "HEAD") to.end();
    else {
      to.setHeader("content-length", Buffer.byteLength(carried));
      to.end(carried);
    }
    return;
  }
  if (carried !== undefined) return sendChunks(carried, to, method);
  const body = response.body;
  if (body === null) {
    to.end();
    return;
  }
  // A handler of its own making with a Web body (the REST helpers carry theirs).
  const reader = body.getReader();
  return sendChunks({ next: () => reader.read(), return: () => reader.cancel() }, to, method);
}

type Chunks = {
  next(): Promise<{ done?: boolean; value?: string | Uint8Array }>;
  return(): Promise<unknown>;
};

/** Writes chunks as they come; a client that goes, or a HEAD, stops their producer. */
async function sendChunks(chunks: Chunks, to: ServerResponse, method: string): Promise<void> {
  const stop = () => {
    chunks.return().catch(() => {});
  };
  if (method === "HEAD") {
    stop();
    to.end();
    return;
  }
  to.once("close", stop);
  let written = false;
  try {
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
      if (next.value !== undefined && !(await write(to, next.value))) return;
    }
    to.end();
    written = true;
  } finally {
    to.off("close", stop);
    // A client gone before the listener was added (its close already past) stops them too.
    if (!written) stop();
  }
}

/** Writes a chunk, waiting for the socket to drain; false once the client has gone. */
function write(to: ServerResponse, chunk: Uint8Array | string): Promise<boolean> | boolean {
  if (to.destroyed) return false;
  if (to.write(chunk)) return true;
  return new Promise((resolve) => {
    const settle = (drained: boolean) => {
      to.off("drain", onDrain);
      to.off("close", onClose);
      resolve(drained);
    };
    const onDrain = () => settle(true);
    const onClose = () => settle(false);
    to.on("drain", onDrain);
    to.on("close", onClose);
  });
}
