import { assertAgentExists } from "@/server/agents";
import {
  decideApproval,
  decideApprovalInputSchema,
  listApprovals,
  listApprovalsInputSchema,
  listApprovalsOutputSchema,
} from "@/server/approvals";
import { isAdmin, type Session } from "@/server/auth";
import type { Caller } from "@/server/callers";
import {
  type ApprovalDecisionReply,
  approvalDecisionSchema,
  checkChat,
  resumeChat,
} from "@/server/chat";
import { AppError } from "@/server/frame/errors";
import { publicProcedure, roleRefusal, router } from "@/server/frame/trpc";
import { databaseUnavailable, jsonBodyErrors, problem, rest } from "@/server/http";
import { reservationLifetimeMs } from "@/server/quota";
import { resumeRun } from "@/server/runs";
import * as examples from "./examples-approvals";

/** GET /agents/{aid}/approvals and a decision: for the admin, or the agent key that asked. */

const ADMIN_OR_AGENT_KEY: Record<string, string[]>[] = [{ adminKey: [] }, { agentKey: [] }];

const refusals = {
  400: problem("A bad aid, approval id or body."),
  401: problem(
    "Neither the admin key nor a key of the agent: only they may see and decide its approvals.",
  ),
  403: problem(
    "The agent is paused (a decision would make it go on; the admin may still list), or a viewer decides.",
  ),
  503: databaseUnavailable,
};

function deciderOnly(caller: Caller, session: Session | null | undefined): void {
  // An admin whose role writes nothing (a viewer) is refused as one (403), not as a stranger
  // (401), which the dashboard takes for a session that ended and signs them out.
  if (caller.kind === "admin" || caller.kind === "key") return;
  if (isAdmin(session)) throw new AppError("forbidden", roleRefusal("operator", session.role));
  throw new AppError(
    "unauthorized",
    "Only the admin, or the agent key whose chat asked for a tool call, may see and decide approvals: send 'Authorization: Bearer <key>'.",
  );
}

export const approvalsRouter = router({
  list: publicProcedure
    .meta(
      rest({
        method: "GET",
        path: "/agents/{aid}/approvals",
        operationId: "listApprovals",
        summary:
          "The agent's tool calls waiting for a person's approval, the oldest first: all of them for the admin, its own for an agent key.",
        security: ADMIN_OR_AGENT_KEY,
        answers: { 200: { description: "The waiting calls.", examples: examples.list } },
        refusals: { ...refusals, 404: problem("Unknown agent.") },
      }),
    )
    .input(listApprovalsInputSchema)
    .output(listApprovalsOutputSchema)
    .query(async ({ ctx, input }) => {
      // Any admin reads them (a viewer too: reading is what it may do), a paused agent's as
      // well; a key, as long as it may chat with the agent.
      if (ctx.caller.kind === "admin" || isAdmin(ctx.session)) {
        await assertAgentExists(ctx.db, input.aid);
        return { approvals: await listApprovals({ ...ctx, caller: { kind: "admin" } }, input.aid) };
      }
      deciderOnly(ctx.caller, ctx.session);
      await checkChat(ctx, input);
      return { approvals: await listApprovals(ctx, input.aid) };
    }),

  decide: publicProcedure
    .meta(
      rest({
        method: "POST",
        path: "/agents/{aid}/approvals/{id}",
        operationId: "decideApproval",
        summary:
          "Approves or denies a waiting tool call; the last decision of a turn makes it go on, here, and answers with what it did.",
        description:
          "The admin may decide any; an agent key, the calls of its own chats. A denial's `reason` is told to the model. When other calls of the same turn still wait, the answer is `waiting`; when this was the last, the calls are made (or refused), the model goes on, and the answer carries the chat's reply: stored and counted once, as if it had never paused. A run's turn ends its run.",
        security: ADMIN_OR_AGENT_KEY,
        body: { required: true, examples: examples.decision },
        answers: {
          200: { description: "The decision and its effect.", examples: examples.decided },
        },
        refusals: {
          ...refusals,
          ...jsonBodyErrors,
          404: problem("No such agent, or no call of it waiting for your decision with this id."),
          409: problem("The call was already decided."),
        },
      }),
    )
    .input(decideApprovalInputSchema)
    .output(approvalDecisionSchema)
    .mutation(async ({ ctx, input }): Promise<ApprovalDecisionReply> => {
      deciderOnly(ctx.caller, ctx.session);
      await checkChat(ctx, input);
      // Long enough to wait for a model slot, then for the model: past it, the turn is ended.
      const resumingMs = reservationLifetimeMs(ctx.model.llm.timeoutMs) + ctx.model.llm.timeoutMs;
      const turn = await decideApproval(ctx, input, resumingMs);
      const decided = { id: input.id, decision: input.decision, reason: input.reason ?? null };
      if (!turn) return { ...decided, status: "waiting", reply: null, run_id: null, error: null };
      if (turn.runId !== undefined)
        return { ...decided, ...(await resumeRun(ctx, turn)), reply: null, run_id: turn.runId };
      return { ...decided, ...(await resumeChat(ctx, turn)), run_id: null };
    }),
});
