import type { z } from "zod";
import { router, viewerProcedure } from "@/server/frame/trpc";
import { adminErrors, csvResponse, json, problem, rest, wantsCsv } from "@/server/http";
import {
  agentUsage,
  agentUsageInputSchema,
  agentUsageOutputSchema,
  allUsage,
  allUsageInputSchema,
  allUsageOutputSchema,
  type UsageSeries,
  usageCsv as usageCsvText,
} from "@/server/usage";
import * as examples from "./examples-admin";

/** Usage over time (admin): JSON, or CSV with `Accept: text/csv`. */

/** A usage series as CSV: one line per bucket (server/usage/view.ts writes it). */
function usageCsv(series: UsageSeries, name: string): Response {
  const { text, filename } = usageCsvText(series, name);
  return csvResponse(text, filename);
}

const csv = { "text/csv": { schema: { type: "string" as const }, examples: examples.usageCsv } };

export const usageRouter = router({
  agent: viewerProcedure
    .meta(
      rest<z.output<typeof agentUsageOutputSchema>>({
        method: "GET",
        path: "/agents/{aid}/usage",
        operationId: "getAgentUsage",
        summary:
          "The agent's messages, runs, tokens, cost and refusals by UTC day or hour, from what was stored; CSV with Accept: text/csv.",
        handle: async ({ request, call, input }) => {
          const usage = await call(input);
          return wantsCsv(request) ? usageCsv(usage, `usage-${usage.aid}`) : json(usage);
        },
        answers: {
          200: {
            description: "One bucket per day or hour of the range (at most 366 days or 744 hours).",
            examples: examples.agentUsage,
            content: csv,
          },
        },
        refusals: {
          400: problem("Invalid range or granularity, or a bad aid (as for GET /agents/{aid})."),
          ...adminErrors,
          404: problem("Unknown agent."),
        },
      }),
    )
    .input(agentUsageInputSchema)
    .output(agentUsageOutputSchema)
    .query(({ ctx, input }) => agentUsage(ctx, input)),

  all: viewerProcedure
    .meta(
      rest<UsageSeries>({
        method: "GET",
        path: "/usage",
        operationId: "getUsage",
        summary:
          "Usage of every agent by UTC day or hour, with the agents that used the most tokens; CSV (the series) with Accept: text/csv.",
        handle: async ({ request, call, input }) => {
          const usage = await call(input);
          return wantsCsv(request) ? usageCsv(usage, "usage") : json(usage);
        },
        answers: {
          200: {
            description: "The series and one page of the top agents.",
            examples: examples.allUsage,
            content: csv,
          },
        },
        refusals: { 400: problem("Invalid range, granularity, top or cursor."), ...adminErrors },
      }),
    )
    .input(allUsageInputSchema)
    .output(allUsageOutputSchema)
    .query(({ ctx, input }) => allUsage(ctx, input)),
});
