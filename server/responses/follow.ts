import { setTimeout } from "node:timers/promises";
import { AppError } from "@/server/frame/errors";
import { type NumberedEvent, runningHere } from "./background";
import { eventsAfter } from "./lifecycle";
import type { ResponseContext } from "./responses";
import { findResponse } from "./store";

/**
 * GET /v1/responses/{id}?stream=true: a background response's events after `starting_after`,
 * then the rest as they come, to its end. From memory when this process answers it; otherwise
 * from the database, read every POLL_MS, wherever it is answered.
 */

const POLL_MS = 100;
const PAGE = 500;
/** Streams read from the database at once in this process: each is a query every POLL_MS. */
const POLLING_MAX = 200;
let polling = 0;

export async function followResponse(
  ctx: ResponseContext,
  { id, starting_after: after = -1 }: { id: string; starting_after?: number | undefined },
  signal: AbortSignal,
): Promise<AsyncGenerator<NumberedEvent, void, undefined>> {
  const row = await findResponse(ctx, id);
  if (!row.background)
    throw new AppError(
      "validation_failed",
      "stream=true streams a background response; this one was answered while its request was open, so read it without stream.",
      { errors: [{ field: "stream", detail: "is only for background responses" }] },
    );
  const here = runningHere(id);
  if (here) return here.follow(after, signal);
  if (polling >= POLLING_MAX)
    throw new AppError(
      "service_unavailable",
      `This instance already streams ${POLLING_MAX} background responses answered elsewhere; try again in a few seconds.`,
      { retryAfterS: 5 },
    );
  return recorded(ctx, id, after, signal);
}

async function* recorded(
  { db }: ResponseContext,
  id: string,
  after: number,
  signal: AbortSignal,
): AsyncGenerator<NumberedEvent, void, undefined> {
  polling += 1;
  try {
    let last = after;
    while (!signal.aborted) {
      const { status, events } = await eventsAfter(db, id, last, PAGE);
      for (const event of events) {
        last = event.seq;
        yield numbered(event.seq, event.data);
      }
      if (events.length === PAGE) continue;
      // Deleted meanwhile, or ended: its last events were written before its status.
      if (status === undefined || status !== "in_progress") return;
      // Cut short when the client leaves; the loop's own test then ends it.
      await setTimeout(POLL_MS, undefined, { signal }).catch(() => {});
    }
  } finally {
    polling -= 1;
  }
}

/** An event as written: its JSON begins with its type (background.ts writes it so). */
function numbered(seq: number, json: string): NumberedEvent {
  const type = /^\{"type":"([^"]+)"/.exec(json)?.[1] ?? "message";
  return { type, sequence_number: seq, json };
}
