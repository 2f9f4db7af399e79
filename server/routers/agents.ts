import { z } from "zod";
import { getAgent, listAgents, upsertAgent } from "@/server/agents/agents";
import {
  AID_MAX_LENGTH,
  agentInputSchema,
  agentSchema,
  listAgentsInputSchema,
  listAgentsOutputSchema,
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
    // Any string may be looked up: a reserved or malformed aid is simply not found.
    .input(z.strictObject({ aid: z.string().min(1).max(AID_MAX_LENGTH) }))
    .output(agentSchema)
    .query(({ ctx, input }) => getAgent(ctx, input.aid)),
});
