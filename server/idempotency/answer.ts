import { createHash } from "node:crypto";
import type { Db } from "@/db/client";
import { type Caller, callerScope } from "@/server/callers";
import { AppError } from "@/server/frame/errors";
import {
  carriedBody,
  outlivesItsClient,
  streamedResponse,
  type TextChunks,
  textResponse,
} from "@/server/instance";
import type { Clock } from "@/server/kit/clock";
import { seal, unseal } from "@/server/kit/secret-box";
import { log } from "@/server/observability";
import { type Claim, claimKey, keepAnswer, releaseClaim, type StoredAnswer } from "./store";

/**
 * `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header) on the operations that create or
 * spend: the first request with a key does the work and its successful answer is kept; a retry
 * with the same key and request replays it, one with another request is 422, one while the first
 * is in flight 409. An answer that is not a success keeps nothing, so a retry does the work.
 */

const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
/** Set on a replayed answer, as Stripe names it. */
const REPLAYED_HEADER = "idempotent-replayed";
const KEY_MAX_CHARS = 255;
/** A larger answer is not kept (a retry does the work again): far above any this service gives. */
const ANSWER_MAX_CHARS = 4 * 1024 * 1024;
/** Per request, not per answer: never replayed. */
const UNKEPT_HEADERS = new Set(["set-cookie", "content-length", "x-request-id", "date"]);

export type IdempotentRequest = {
  db: Db;
  clock: Clock;
  caller: Caller;
  request: Request;
  /** The operation, as the request fingerprint names it: `POST /v1/responses`. */
  operation: string;
  /** What the operation was asked: the path's parameters and the body, as collected. */
  input: unknown;
  /** After this long without an answer, a claim is taken for one whose process died. */
  staleAfterMs: number;
  /** Seals the kept bodies: replies are private, and some answers hold a key shown once. */
  answerKey: Uint8Array;
};

/** The key the request sends, or undefined; a malformed one is refused. */
export function idempotencyKeyOf(headers: Headers): string | undefined {
  const raw = headers.get(IDEMPOTENCY_KEY_HEADER);
  if (raw === null) return undefined;
  // The draft sends it as a structured-field string ("…"); clients as Stripe's send it bare.
  const key = /^"[^"\\]*"$/.test(raw) ? raw.slice(1, -1) : raw;
  if (key.length === 0 || key.length > KEY_MAX_CHARS || !/^[\x21-\x7e]+$/.test(key))
    throw new AppError(
      "validation_failed",
      `The Idempotency-Key header must be 1 to ${KEY_MAX_CHARS} visible ASCII characters, such as a UUID.`,
      {
        errors: [
          {
            field: "Idempotency-Key",
            detail: `is not 1 to ${KEY_MAX_CHARS} visible ASCII characters`,
          },
        ],
      },
    );
  return key;
}

/** The answer of `work`, done once per caller and key within a day (see above). */
export async function answerIdempotently(
  asked: IdempotentRequest,
  key: string,
  work: () => Promise<Response>,
): Promise<Response> {
  const { db, clock } = asked;
  const now = clock.now();
  const held = {
    caller: callerScope(asked.caller),
    key,
    fingerprint: fingerprintOf(asked.operation, asked.input),
  };
  const claimed = await claimKey(db, {
    ...held,
    now,
    staleBefore: new Date(now.getTime() - asked.staleAfterMs),
  });
  const boundTo = `${held.caller}\0${key}`;
  if (claimed.kind !== "claimed")
    return answerOf(claimed, (body) => unseal(asked.answerKey, body, boundTo));
  const ref = { caller: held.caller, key, claim: claimed.claim };
  const release = () =>
    releaseClaim(db, ref).catch((error: unknown) =>
      log.error({ err: error }, "An Idempotency-Key could not be given back; it frees itself"),
    );
  let response: Response;
  try {
    response = await work();
  } catch (error) {
    await release();
    throw error;
  }
  if (response.status < 200 || response.status >= 300) {
    await release();
    return response;
  }
  const keep = async (body: string) => {
    if (body.length > ANSWER_MAX_CHARS) return release();
    const answer: StoredAnswer = {
      status: response.status,
      headers: keptHeaders(response),
      body: seal(asked.answerKey, body, boundTo),
    };
    await keepAnswer(db, ref, answer, clock.now()).catch((error: unknown) =>
      log.error({ err: error }, "An idempotent answer could not be kept; a retry does the work"),
    );
  };
  const carried = carriedBody(response);
  if (carried === undefined) {
    const body = await response.text();
    await keep(body);
    return textResponse(body, response);
  }
  if (typeof carried === "string") {
    await keep(carried);
    return response;
  }
  // A client that leaves a stream whose work goes on leaves with its answer: what it was sent.
  const leaving = outlivesItsClient(response) ? keep : release;
  return streamedResponse(recorded(carried, asked.request.signal, keep, leaving), response);
}

/** The chunks as they pass, kept when the stream ends; `leaving` when the client leaves. */
function recorded(
  chunks: TextChunks,
  signal: AbortSignal,
  keep: (body: string) => Promise<void>,
  leaving: (body: string) => Promise<void>,
): TextChunks {
  let text = "";
  let ended = false;
  const end = async (kept: boolean) => {
    if (ended) return;
    ended = true;
    await (kept && !signal.aborted ? keep(text) : leaving(text));
  };
  return {
    async next() {
      let next: IteratorResult<string, undefined>;
      try {
        next = await chunks.next();
      } catch (error) {
        await end(false);
        throw error;
      }
      if (next.done) await end(true);
      else if (text.length <= ANSWER_MAX_CHARS) text += next.value;
      return next;
    },
    async return() {
      await end(false);
      return chunks.return();
    },
  };
}

function answerOf(
  claimed: Exclude<Claim, { kind: "claimed" }>,
  open: (sealed: string) => string | undefined,
): Response {
  switch (claimed.kind) {
    case "other_request":
      throw new AppError(
        "idempotency_key_reused",
        "This Idempotency-Key was sent with another request (another operation or body) in the last 24 hours; send a new key for a new request.",
      );
    case "in_flight":
      throw new AppError(
        "idempotency_key_in_use",
        "A request with this Idempotency-Key is still being answered; retry once it has ended.",
        { retryAfterS: 1 },
      );
    case "answered": {
      const { status, headers, body } = claimed.answer;
      const opened = open(body);
      if (opened === undefined)
        throw new AppError(
          "conflict",
          "The answer kept for this Idempotency-Key can no longer be read (the admin key has changed); send the request with a new key.",
        );
      return textResponse(opened, { status, headers: { ...headers, [REPLAYED_HEADER]: "true" } });
    }
  }
}

/** The request as the key is bound to it: the operation and what it was asked, hashed. */
function fingerprintOf(operation: string, input: unknown): string {
  return createHash("sha256")
    .update(`${operation}\n${JSON.stringify(input) ?? ""}`)
    .digest("base64url");
}

function keptHeaders(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!UNKEPT_HEADERS.has(name)) headers[name] = value;
  });
  return headers;
}
