import { eq } from "drizzle-orm";
import { agents } from "@/db/schema";
import type { DataContext } from "@/server/frame/data-context";
import { AppError } from "@/server/frame/errors";
import {
  type ModelCall,
  type ModelRuntime,
  noModelSlot,
  startModelCall,
} from "@/server/model-call";
import type { ClaimedTurn } from "./store";

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
