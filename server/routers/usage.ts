import { adminProcedure, router } from "@/server/frame/trpc";
import {
  agentUsage,
  agentUsageInputSchema,
  agentUsageOutputSchema,
  allUsage,
  allUsageInputSchema,
  allUsageOutputSchema,
} from "@/server/usage";

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
