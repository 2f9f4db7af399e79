import { adminProcedure, router } from "@/server/trpc";
import {
  agentUsageInputSchema,
  agentUsageOutputSchema,
  allUsageInputSchema,
  allUsageOutputSchema,
} from "@/server/usage/schema";
import { agentUsage, allUsage } from "@/server/usage/usage";

export const usageRouter = router({
  agent: adminProcedure
    .input(agentUsageInputSchema)
    .output(agentUsageOutputSchema)
    .query(({ ctx, input }) => agentUsage(ctx, input)),

  all: adminProcedure
    .input(allUsageInputSchema)
    .output(allUsageOutputSchema)
    .query(({ ctx, input }) => allUsage(ctx, input)),
});
