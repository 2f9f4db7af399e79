import { messageOf, responseObjectOf } from "./object";
import type { ResponseContext } from "./responses";
import type { ResponseObject } from "./schema";
import { findResponse, inputItemsPage, removeResponse } from "./store";

// The reads of a kept response: GET and DELETE /v1/responses/{id}, and its input items.

/** GET /v1/responses/{id}: a kept response of the caller, as it was answered. */
export async function getResponse(ctx: ResponseContext, id: string): Promise<ResponseObject> {
  const row = await findResponse(ctx, id);
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
    },
    "completed",
    [messageOf({ messageId: `msg_${row.id.slice("resp_".length)}` }, row.outputText)],
    { input_tokens: row.inputTokens, output_tokens: row.outputTokens },
  );
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
