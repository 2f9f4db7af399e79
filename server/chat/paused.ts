import { eq } from "drizzle-orm";
import { agentQuotaView } from "@/db/schema";
import {
  type ClaimedTurn,
  endTurn,
  pauseAgain,
  resumedCall,
  resumedExchange,
  turnProblem,
} from "@/server/approvals";
import type { Config } from "@/server/frame/config";
import type { DataContext } from "@/server/frame/data-context";
import { AppError } from "@/server/frame/errors";
import type { ModelRuntime } from "@/server/model-call";
import { presentQuota, releaseMessage, settleMessage } from "@/server/quota";
import { storeExchange } from "@/server/threads";
import { replyOf } from "./reply";
import type { ChatReply } from "./schema";

/**
 * A chat's turn paused for approvals goes on, in the process that took its last decision: the
 * decided calls are made or refused, the model is asked on, and the reply is stored and counted
 * with the reservation the chat kept, or the message given back if it fails.
 */

export type TurnOutcome = {
  status: "completed" | "requires_approval" | "failed";
  reply: ChatReply | null;
  error: { code: string; detail: string } | null;
};

type ResumeContext = DataContext & { model: ModelRuntime; config: Config };

export async function resumeChat(ctx: ResumeContext, turn: ClaimedTurn): Promise<TurnOutcome> {
  const { db } = ctx;
  const reservationId = turn.reservationId as number;
  try {
    return await goOn(ctx, turn, reservationId);
  } catch (error) {
    await releaseMessage(db, { aid: turn.aid, reservationId });
    await endTurn(db, turn.id);
    return failed(error, turn);
  }
}

async function goOn(
  ctx: ResumeContext,
  turn: ClaimedTurn,
  reservationId: number,
): Promise<TurnOutcome> {
  const { db } = ctx;
  const call = await resumedCall(ctx, turn);
  try {
    const reply = await call.generate().catch((error: unknown) => {
      throw call.failure(error);
    });
    const ask = { aid: turn.aid, chatId: turn.chatId };
    const quota = async () => {
      const [row] = await db.select().from(agentQuotaView).where(eq(agentQuotaView.aid, turn.aid));
      if (!row) throw new AppError("agent_not_found", `Agent '${turn.aid}' was deleted.`);
      return presentQuota(row, ctx.clock.now());
    };
    if (reply.paused) {
      const approvals = await pauseAgain(ctx, turn, reply.paused);
      const standing = { cost: null, quota: await quota(), rateLimit: null };
      return {
        status: "requires_approval",
        reply: replyOf(ask, reply, standing, approvals),
        error: null,
      };
    }
    const { stored, cost } = await storeExchange(
      db,
      resumedExchange(turn, reply, ctx.clock.now()),
      settleMessage(reservationId),
      "message",
    );
    if (!stored)
      throw new AppError(
        "service_unavailable",
        "The chat's message was given back before its reply could be stored; ask again.",
      );
    await endTurn(db, turn.id);
    return {
      status: "completed",
      reply: replyOf(ask, reply, { cost, quota: await quota(), rateLimit: null }),
      error: null,
    };
  } finally {
    call.end();
  }
}

function failed(error: unknown, turn: Pick<ClaimedTurn, "id" | "aid">): TurnOutcome {
  return {
    status: "failed",
    reply: null,
    error: turnProblem(error, { aid: turn.aid, turn: turn.id }),
  };
}
