import type { responses } from "@/db/schema";
import { AppError } from "@/server/frame/errors";
import { readUntil } from "@/server/kit/read-until";
import { runningHere } from "./background";
import { askToCancel } from "./lifecycle";
import { messageOf, responseObjectOf } from "./object";
import type { ResponseContext } from "./responses";
import type { ResponseObject } from "./schema";
import { findResponse, inputItemsPage, removeResponse, whose } from "./store";

// The reads of a kept response: GET and DELETE /v1/responses/{id}, its input items, its cancel.

/** How long a cancel waits to answer with the response ended; then it answers as it stands. */
const CANCEL_WAIT_MS = 3_000;

/** GET /v1/responses/{id}: a kept response of the caller, as it stands. */
export async function getResponse(ctx: ResponseContext, id: string): Promise<ResponseObject> {
  return objectOf(await findResponse(ctx, id));
}

function objectOf(row: typeof responses.$inferSelect): ResponseObject {
  const completed = row.status === "completed";
  return responseObjectOf(
    {
      id: row.id,
      model: row.aid,
      createdAt: Math.floor(row.createdAt.getTime() / 1000),
      instructions: row.instructions,
      previousResponseId: row.previousResponseId,
      store: true,
      metadata: row.metadata,
      settings: row.settings,
      background: row.background,
    },
    row.status,
    completed
      ? [messageOf({ messageId: `msg_${row.id.slice("resp_".length)}` }, row.outputText)]
      : [],
    completed ? { input_tokens: row.inputTokens, output_tokens: row.outputTokens } : null,
    row.error ?? null,
  );
}

/**
 * POST /v1/responses/{id}/cancel: asks whichever instance answers the background response to stop
 * its model call, and answers with the response once it has ended (cancelled, or how it ended
 * first). One that has ended is answered as it is.
 */
export async function cancelResponse(ctx: ResponseContext, id: string): Promise<ResponseObject> {
  const row = await findResponse(ctx, id);
  if (!row.background)
    throw new AppError(
      "validation_failed",
      "Only a background response can be cancelled; this one was answered while its request was open.",
      { errors: [{ field: "id", detail: "is not a background response" }] },
    );
  if (row.status !== "in_progress") return objectOf(row);
  await askToCancel(ctx.db, id, whose(ctx.caller), ctx.clock.now());
  const here = runningHere(id);
  if (here) {
    here.cancel();
    await here.ended;
    return getResponse(ctx, id);
  }
  const ended = await readUntil(
    () => findResponse(ctx, id),
    (now) => now.status !== "in_progress",
    CANCEL_WAIT_MS,
  );
  return objectOf(ended);
}

export async function deleteResponse(ctx: ResponseContext, id: string) {
  await removeResponse(ctx, id);
  return { id, object: "response" as const, deleted: true as const };
}

export function listInputItems(
  ctx: ResponseContext,
  input: { id: string; limit: number; order: "asc" | "desc"; after?: string | undefined },
) {
  return inputItemsPage(ctx, input);
}
