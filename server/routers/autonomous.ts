import { aidInputSchema } from "@/server/agents/schema";
import { listRuns, presentRun, summarizeRuns } from "@/server/scheduler/history";
import { runNow } from "@/server/scheduler/runs";
import {
  listRunsInputSchema,
  listRunsOutputSchema,
  runSchema,
  runSummarySchema,
} from "@/server/scheduler/schema";
import { adminProcedure, router } from "@/server/trpc";

export const autonomousRouter = router({
  runs: adminProcedure
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
