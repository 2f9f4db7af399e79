import { wantsCsv } from "../csv";
import { ADMIN, adminErrors, problem } from "../documented";
import { endpoint } from "../endpoint";
import { json } from "../response";
import { usageCsv } from "../usage-csv";
import * as examples from "./examples-admin";

const csv = { "text/csv": { schema: { type: "string" as const }, examples: examples.usageCsv } };

export const usageEndpoints = [
  endpoint({
    method: "GET",
    path: "/agents/{aid}/usage",
    procedure: (p) => p.usage.agent,
    operationId: "getAgentUsage",
    summary:
      "The agent's messages, runs, tokens, cost and refusals by UTC day or hour, from what was stored; CSV with Accept: text/csv.",
    security: ADMIN,
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
  endpoint({
    method: "GET",
    path: "/usage",
    procedure: (p) => p.usage.all,
    operationId: "getUsage",
    summary:
      "Usage of every agent by UTC day or hour, with the agents that used the most tokens; CSV (the series) with Accept: text/csv.",
    security: ADMIN,
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
];
