import { z } from "zod";
import { getAgent, listAgents, upsertAgent } from "@/server/agents/agents";
import {
  agentInputSchema,
  agentSchema,
  listAgentsInputSchema,
  listAgentsOutputSchema,
  lookupAidSchema,
  upsertAgentOutputSchema,
} from "@/server/agents/schema";
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

  get: adminProcedure
    .input(z.strictObject({ aid: lookupAidSchema }))
    .output(agentSchema)
    .query(({ ctx, input }) => getAgent(ctx, input.aid)),
});
