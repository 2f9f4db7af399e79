import { aidInputSchema } from "@/server/agent-id";
import {
  listRuns,
  listRunsInputSchema,
  listRunsOutputSchema,
  presentRun,
  runNow,
  runSchema,
  runSummarySchema,
  summarizeRuns,
} from "@/server/runs";
import { adminProcedure, router } from "@/server/trpc";

export const runsRouter = router({
  list: adminProcedure
    .input(listRunsInputSchema)
    .output(listRunsOutputSchema)
    .query(({ ctx, input }) => listRuns(ctx, input)),

  summary: adminProcedure
    .input(aidInputSchema)
    .output(runSummarySchema)
    .query(({ ctx, input }) => summarizeRuns(ctx, input.aid)),

  /** Runs the agent's autonomous prompt now, outside its schedule, and returns the finished run. */
  runNow: adminProcedure
    .input(aidInputSchema)
    .output(runSchema)
    .mutation(async ({ ctx, input }) => presentRun(await runNow(ctx, input.aid))),
});
