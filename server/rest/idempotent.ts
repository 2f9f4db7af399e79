import type { Context } from "@/server/frame/context";
import { ADMIN } from "@/server/http";
import { answerIdempotently, idempotencyKeyOf } from "@/server/idempotency";
import { reservationLifetimeMs } from "@/server/quota";
import type { Operation } from "./operation";

/**
 * The operation's answer, done once per `Idempotency-Key` where the operation is declared
 * idempotent and the request sends one (server/idempotency); otherwise `work`'s.
 */
export async function answerOnceIfAsked(
  operation: Operation,
  context: Context,
  request: Request,
  input: Record<string, unknown>,
  work: () => Promise<Response>,
): Promise<Response> {
  const key = operation.idempotent ? idempotencyKeyOf(request.headers) : undefined;
  // A caller the operation refuses anyway is given no row to write.
  if (key === undefined || (operation.security === ADMIN && context.caller.kind !== "admin"))
    return work();
  return answerIdempotently(
    {
      db: context.db,
      clock: context.clock,
      caller: context.caller,
      request,
      operation: `${operation.method} ${operation.path}`,
      input,
      // A claim outlives no work of its process: a chat's model call is bounded so.
      staleAfterMs: reservationLifetimeMs(context.config.llm.timeoutMs),
      answerKey: context.auth.answerKey,
    },
    key,
    work,
  );
}
