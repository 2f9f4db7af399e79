import { z } from "zod";
import { operatorProcedure, router, viewerProcedure } from "@/server/frame/trpc";
import { adminErrors, problem, rest } from "@/server/http";
import { aidInputSchema } from "@/server/kit/agent-id";
import {
  cancelRun,
  listRuns,
  listRunsInputSchema,
  listRunsOutputSchema,
  presentRun,
  runNow,
  runSchema,
  runSummarySchema,
  summarizeRuns,
} from "@/server/runs";
import { badAid } from "./agents";
import * as examples from "./examples-agents";

/** GET and POST /agents/{aid}/runs: an agent's autonomous runs, and a run now (admin). */

const notFound = { 404: problem("Unknown agent.", examples.agentNotFound) };

export const runsRouter = router({
  list: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/agents/{aid}/runs",
        operationId: "listRuns",
        summary:
          "An agent's autonomous runs, newest first: due time, start, end, outcome, reply or error.",
        answers: { 200: { description: "One page of runs.", examples: examples.runList } },
        refusals: {
          400: problem("Invalid query parameter, or a bad aid (as for GET /agents/{aid})."),
          ...adminErrors,
          ...notFound,
        },
      }),
    )
    .input(listRunsInputSchema)
    .output(listRunsOutputSchema)
    .query(({ ctx, input }) => listRuns(ctx, input)),

  cancel: operatorProcedure
    .meta(
      rest({
        method: "POST",
        path: "/agents/{aid}/runs/{id}/cancel",
        operationId: "cancelRun",
        summary: "Cancels a run in flight, whichever instance runs it.",
        description:
          "The instance running it sees the cancel within a second, stops its model call and tools, and records the run failed, its error saying it was cancelled, its use of the autonomous quota given back. The answer is the run once it has ended (or as it stands after 3 s); a run that has ended is answered as it is.",
        answers: { 200: { description: "The run.", examples: examples.run } },
        refusals: {
          400: problem("A bad aid or run id."),
          ...adminErrors,
          404: problem("No such run of this agent."),
        },
      }),
    )
    .input(
      z.strictObject({
        aid: aidInputSchema.shape.aid,
        id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
      }),
    )
    .output(runSchema)
    .mutation(async ({ ctx, input }) => presentRun(await cancelRun(ctx, input))),

  summary: viewerProcedure
    .input(aidInputSchema)
    .output(runSummarySchema)
    .query(({ ctx, input }) => summarizeRuns(ctx, input.aid)),

  /** Runs the agent's autonomous prompt now, outside its schedule, and returns the finished run. */
  runNow: operatorProcedure
    .meta(
      rest({
        method: "POST",
        path: "/agents/{aid}/runs",
        idempotent: true,
        operationId: "runNow",
        summary:
          "Run the agent's autonomous prompt now, outside its schedule (which it leaves as it is); answers once the run has finished.",
        status: 202,
        answers: { 202: { description: "The run, finished.", examples: examples.run } },
        refusals: {
          ...badAid,
          ...adminErrors,
          ...notFound,
          409: problem("The agent has no autonomous_prompt.", examples.noAutonomousPrompt),
        },
      }),
    )
    .input(aidInputSchema)
    .output(runSchema)
    .mutation(async ({ ctx, input }) => presentRun(await runNow(ctx, input.aid))),
});
