import { z } from "zod";
import { aidInputSchema } from "@/server/agent-id";
import {
  agentInputSchema,
  agentNotFound,
  agentSchema,
  deleteAgent,
  getAgent,
  listAgents,
  listAgentsInputSchema,
  listAgentsOutputSchema,
  resetQuotaInputSchema,
  upsertAgent,
  upsertAgentOutputSchema,
} from "@/server/agents";
import { resetQuotaCounts } from "@/server/quota";
import { adminProcedure, router } from "@/server/trpc";

export const agentsRouter = router({
  upsert: adminProcedure
    .input(agentInputSchema)
    .output(upsertAgentOutputSchema)
    .mutation(({ ctx, input }) => upsertAgent(ctx, input)),

  /** The dashboard's "New agent": like upsert, but an aid in use is refused (409), not updated. */
  create: adminProcedure
    .input(agentInputSchema)
    .output(agentSchema)
    .mutation(
      async ({ ctx, input }) => (await upsertAgent(ctx, input, { createOnly: true })).agent,
    ),

  list: adminProcedure
    .input(listAgentsInputSchema)
    .output(listAgentsOutputSchema)
    .query(({ ctx, input }) => listAgents(ctx, input)),

  resetQuota: adminProcedure
    .input(resetQuotaInputSchema)
    .output(agentSchema)
    .mutation(async ({ ctx, input }) => {
      if (!(await resetQuotaCounts(ctx, input.aid, input.counters))) throw agentNotFound(input.aid);
      return getAgent(ctx, input.aid);
    }),

  /** Deletes the agent with its threads, runs and keys; the aid may be used again. */
  delete: adminProcedure
    .input(aidInputSchema)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteAgent(ctx, input.aid)),

  get: adminProcedure
    .input(aidInputSchema)
    .output(agentSchema)
    .query(({ ctx, input }) => getAgent(ctx, input.aid)),
});
