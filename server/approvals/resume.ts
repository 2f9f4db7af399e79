import { eq } from "drizzle-orm";
import { agents } from "@/db/schema";
import type { DataContext } from "@/server/frame/data-context";
import { AppError, problemFromError } from "@/server/frame/errors";
import {
  type ModelCall,
  type ModelReply,
  type ModelRuntime,
  noModelSlot,
  type PausedTurns,
  startModelCall,
} from "@/server/model-call";
import { log } from "@/server/observability";
import type { Exchange } from "@/server/threads";
import type { PendingApproval } from "./schema";
import { type ClaimedTurn, pauseTurn } from "./store";

/**
 * The model call that takes a claimed turn on from its pause, for a chat or a run: the agent as
 * it is now, a model slot (waited for, as a run waits, rather than lose the decided turn to a
 * busy server), and the decided calls.
 */
export async function resumedCall(
  ctx: DataContext & { model: ModelRuntime },
  turn: ClaimedTurn,
  signal?: AbortSignal,
): Promise<ModelCall> {
  const [agent] = await ctx.db.select().from(agents).where(eq(agents.aid, turn.aid));
  if (!agent) throw new AppError("agent_not_found", `Agent '${turn.aid}' was deleted.`);
  const releaseSlot = await ctx.model.slots.acquire(ctx.model.llm.timeoutMs);
  if (!releaseSlot) throw noModelSlot(ctx.model.slots);
  const { state } = turn;
  return startModelCall(ctx.model, {
    agent,
    history: [],
    question: state.question,
    releaseSlot,
    store: ctx,
    ...(signal ? { signal } : {}),
    resume: { paused: state.paused, decisions: turn.decisions },
    ...(state.settings ? { settings: state.settings } : {}),
  });
}

/** A resumed turn that asked for more approvals: the same turn, paused again, waiting anew. */
export function pauseAgain(
  ctx: DataContext & { model: ModelRuntime },
  turn: ClaimedTurn,
  paused: PausedTurns,
): Promise<PendingApproval[]> {
  const waitMs = ctx.model.tools.config.approvalWaitMs;
  return pauseTurn(ctx, waitMs, turn, { ...turn.state, paused }, turn.id);
}

/** What a resumed turn stores: the question as it was asked, the reply as it ended. */
export function resumedExchange(turn: ClaimedTurn, reply: ModelReply, answeredAt: Date): Exchange {
  return {
    aid: turn.aid,
    caller: turn.caller,
    chatId: turn.chatId,
    question: turn.state.question,
    reply: reply.text,
    model: reply.model,
    usage: reply.usage,
    toolCalls: reply.toolCalls,
    askedAt: new Date(turn.state.askedAt),
    answeredAt,
  };
}

/** Why a resumed turn failed, as its decider is told; logged when it is not the client's doing. */
export function turnProblem(
  error: unknown,
  where: Record<string, unknown>,
): { code: string; detail: string } {
  const problem = problemFromError(error);
  if (problem.code === "internal_error")
    log.error({ err: error, ...where }, "A paused turn failed to go on");
  return { code: problem.code, detail: problem.detail };
}
