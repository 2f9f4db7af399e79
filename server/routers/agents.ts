import { z } from "zod";
import { agentNotFound, getAgent, listAgents, upsertAgent } from "@/server/agents/agents";
import {
  agentInputSchema,
  agentSchema,
  listAgentsInputSchema,
  listAgentsOutputSchema,
  lookupAidSchema,
  upsertAgentOutputSchema,
} from "@/server/agents/schema";
import { resetQuotaCounts } from "@/server/quota/quota";
import { adminProcedure, router } from "@/server/trpc";

export const agentsRouter = router({
  upsert: adminProcedure
    .input(agentInputSchema)
    .output(upsertAgentOutputSchema)
    .mutation(({ ctx, input }) =>
      upsertAgent({ ...ctx, quotaDefaults: ctx.config.quotaDefaults }, input),
    ),

  list: adminProcedure
    .input(listAgentsInputSchema)
    .output(listAgentsOutputSchema)
    .query(({ ctx, input }) => listAgents(ctx, input)),

  /** Sets the agent's five counters back to 0 (the limits stay). */
  resetQuota: adminProcedure
    .input(z.strictObject({ aid: lookupAidSchema }))
    .output(agentSchema)
    .mutation(async ({ ctx, input }) => {
      if (!(await resetQuotaCounts(ctx, input.aid))) throw agentNotFound(input.aid);
      return getAgent(ctx, input.aid);
    }),

  get: adminProcedure
    .input(z.strictObject({ aid: lookupAidSchema }))
    .output(agentSchema)
    .query(({ ctx, input }) => getAgent(ctx, input.aid)),
});
