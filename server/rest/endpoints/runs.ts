import { ADMIN, adminErrors, problem } from "../documented";
import { endpoint } from "../endpoint";
import { badAid } from "./agents";
import * as examples from "./examples-agents";

const notFound = { 404: problem("Unknown agent.", examples.agentNotFound) };

export const runEndpoints = [
  endpoint({
    method: "GET",
    path: "/agents/{aid}/runs",
    procedure: (p) => p.runs.list,
    operationId: "listRuns",
    summary:
      "An agent's autonomous runs, newest first: due time, start, end, outcome, reply or error.",
    security: ADMIN,
    answers: { 200: { description: "One page of runs.", examples: examples.runList } },
    refusals: {
      400: problem("Invalid query parameter, or a bad aid (as for GET /agents/{aid})."),
      ...adminErrors,
      ...notFound,
    },
  }),
  endpoint({
    method: "POST",
    path: "/agents/{aid}/runs",
    procedure: (p) => p.runs.runNow,
    operationId: "runNow",
    summary:
      "Run the agent's autonomous prompt now, outside its schedule (which it leaves as it is); answers once the run has finished.",
    security: ADMIN,
    status: 202,
    answers: { 202: { description: "The run, finished.", examples: examples.run } },
    refusals: {
      ...badAid,
      ...adminErrors,
      ...notFound,
      409: problem("The agent has no autonomous_prompt.", examples.noAutonomousPrompt),
    },
  }),
];
