import Negotiator from "negotiator";
import { AppError } from "@/server/frame/errors";

export const MAX_BODY_BYTES = 64 * 1024;

/** Accept headers remembered per chooser, and the longest one remembered: a client sends any. */
const ACCEPTS_KEPT = 64;
const ACCEPT_KEPT_MAX = 256;

/** The one of `types` a request's Accept prefers, remembered for the Accept headers seen lately. */
export function acceptedType(types: readonly string[]): (request: Request) => string | undefined {
  const chosen = new Map<string, string | undefined>();
  return (request) => {
    const accept = request.headers.get("accept") ?? "*/*";
    if (chosen.has(accept)) return chosen.get(accept);
    const type = new Negotiator({ headers: { accept } }).mediaType(types as string[]);
    if (accept.length <= ACCEPT_KEPT_MAX) {
      if (chosen.size >= ACCEPTS_KEPT) chosen.clear();
      chosen.set(accept, type);
    }
    return type;
  };
}

/** The query string as a plain object; a parameter given twice is an error, not a guess. */
export function queryParams(request: Request, names: readonly string[]): Record<string, string> {
  const url = new URL(request.url);
  const params: Record<string, string> = {};
  for (const name of names) {
    const values = url.searchParams.getAll(name);
    if (values.length > 1) {
      throw new AppError("bad_request", `The query parameter '${name}' is given more than once.`, {
        errors: [{ field: name, detail: "is given more than once" }],
      });
    }
    if (values[0] !== undefined) params[name] = values[0];
  }
  return params;
}

/** Reads a JSON body of at most `maxBytes`, counted as it arrives, whatever Content-Length says. */
export async function readJsonBody(
  request: Request,
  { optional = false, maxBytes = MAX_BODY_BYTES }: { optional?: boolean; maxBytes?: number } = {},
): Promise<unknown> {
  const declared = Number(request.headers.get("content-length"));
  if (declared > maxBytes) throw bodyTooLarge(maxBytes);
  const text = await readLimitedText(request, maxBytes);
  // A body that may be left out: none at all is `undefined`, whatever the headers say.
  if (optional && text === "") return undefined;
  const type = request.headers.get("content-type");
  // Required, not assumed: a form or a page's script can send a body with no type (or
  // text/plain) without a preflight; only JSON that says so is read.
  if (!type || !/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type)) {
    throw new AppError(
      "unsupported_media_type",
      type
        ? `The body must be JSON (Content-Type: application/json), not '${type}'.`
        : "The body must be JSON, sent with Content-Type: application/json.",
    );
  }
  if (text.trim() === "")
    throw new AppError("malformed_json", "The request body is empty; send a JSON object.");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new AppError(
      "malformed_json",
      `The request body is not valid JSON: ${(error as Error).message}.`,
    );
  }
  // Every body the API takes is an object: anything else is refused, never read as `{}`.
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    const given = body === null ? "null" : Array.isArray(body) ? "an array" : `a ${typeof body}`;
    throw new AppError(
      "validation_failed",
      `The request body must be a JSON object, not ${given}.`,
      {
        errors: [{ field: "body", detail: "must be a JSON object" }],
      },
    );
  }
  return body;
}

function bodyTooLarge(maxBytes: number): AppError {
  return new AppError(
    "payload_too_large",
    `The request body is larger than ${maxBytes / 1024} KiB.`,
  );
}

/** The body as text, refused with 413 past `maxBytes` (counted as it arrives). */
export async function readLimitedText(
  request: Request,
  maxBytes = MAX_BODY_BYTES,
): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      // The socket's error (a reset, an abort) is the client's leaving, not the database's.
      throw new AppError(
        "client_closed_request",
        "The client closed the connection before the request's body arrived.",
      );
    });
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw bodyTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    return decoder.decode(Buffer.concat(chunks));
  } catch {
    throw new AppError("malformed_json", "The request body is not valid UTF-8 text.");
  }
}
