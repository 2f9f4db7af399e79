import type { ZodOpenApiPathsObject } from "zod-openapi";
import { aidInputSchema } from "@/server/agent-id";
import {
  agentInputSchema,
  agentSchema,
  listAgentsInputSchema,
  listAgentsOutputSchema,
  resetQuotaInputSchema,
} from "@/server/agents";
import { listRunsInputSchema, listRunsOutputSchema, runSchema } from "@/server/runs";
import { agentToolsSchema } from "@/server/tools";
import * as examples from "./examples-agents";
import { ADMIN, adminErrors, json, jsonBodyErrors, problem, split } from "./parts";

/** The admin's agent paths: the agents, one agent, its quota, tools and runs. */

const notFound = { "404": problem("Unknown agent.", examples.agentNotFound) };
const badAid = {
  "400": problem(
    "The aid holds the NUL character, is too long, or has a malformed percent-escape.",
  ),
};
const reset = split(resetQuotaInputSchema, ["aid"]);
const runs = split(listRunsInputSchema, ["aid"]);

export const agentPaths: ZodOpenApiPathsObject = {
  "/agents": {
    get: {
      operationId: "listAgents",
      summary: "List agents with their quotas (keyset pagination, search by aid or name).",
      security: ADMIN,
      requestParams: { query: listAgentsInputSchema },
      responses: {
        "200": {
          description: "One page of agents.",
          content: json(listAgentsOutputSchema, examples.agentList),
        },
        "400": problem("Invalid query parameter."),
        ...adminErrors,
      },
    },
    post: {
      operationId: "upsertAgent",
      summary: "Create an agent, or update the fields given (omitted fields keep their value).",
      security: ADMIN,
      requestBody: { required: true, content: json(agentInputSchema, examples.upsertAgent) },
      responses: {
        "200": { description: "Updated.", content: json(agentSchema, examples.agentUpdated) },
        "201": { description: "Created.", content: json(agentSchema, examples.agentCreated) },
        "400": problem(
          "Invalid agent ID format, invalid fields, or malformed JSON.",
          examples.invalidFields,
        ),
        ...adminErrors,
        ...jsonBodyErrors,
        "500": problem("Database failure; nothing was written."),
      },
    },
  },
  "/agents/{aid}": {
    get: {
      operationId: "getAgent",
      summary: "One agent with its quota.",
      security: ADMIN,
      requestParams: { path: aidInputSchema },
      responses: {
        "200": { description: "The agent.", content: json(agentSchema, examples.agent) },
        ...badAid,
        ...adminErrors,
        ...notFound,
      },
    },
    delete: {
      operationId: "deleteAgent",
      summary:
        "Delete the agent: its quota, threads and messages, runs, keys and rate-limit windows go with it; chats in flight fail and count nothing. The aid may be used again at once.",
      security: ADMIN,
      requestParams: { path: aidInputSchema },
      responses: { "204": { description: "Deleted." }, ...badAid, ...adminErrors, ...notFound },
    },
  },
  "/agents/{aid}/quota/reset": {
    post: {
      operationId: "resetQuota",
      summary: "Set counters back to 0 (the limits stay): those named, or all of them.",
      security: ADMIN,
      requestParams: { path: reset.path },
      requestBody: { required: false, content: json(reset.rest, examples.resetQuota) },
      responses: {
        "200": {
          description: "The agent after the reset.",
          content: json(agentSchema, examples.agentAfterReset),
        },
        "400": problem("Unknown counter name, malformed JSON, or a bad aid (as for GET)."),
        ...adminErrors,
        ...notFound,
        ...jsonBodyErrors,
      },
    },
  },
  "/agents/{aid}/tools": {
    get: {
      operationId: "listAgentTools",
      summary:
        "Each of the agent's MCP servers with its tools as the server describes them now (asked at once, not from a cache), and whether allowed_tools lets the agent call each. A server whose tools cannot be listed has the status a tool call of it would have (timeout, refused, error, unreachable) and, in `error`, the sentence the model would be told, never what the server sent.",
      security: ADMIN,
      requestParams: { path: aidInputSchema },
      responses: {
        "200": { description: "The servers and their tools.", content: json(agentToolsSchema) },
        ...badAid,
        ...adminErrors,
        ...notFound,
      },
    },
  },
  "/agents/{aid}/runs": {
    get: {
      operationId: "listRuns",
      summary:
        "An agent's autonomous runs, newest first: due time, start, end, outcome, reply or error.",
      security: ADMIN,
      requestParams: { path: runs.path, query: runs.rest },
      responses: {
        "200": {
          description: "One page of runs.",
          content: json(listRunsOutputSchema, examples.runList),
        },
        "400": problem("Invalid query parameter, or a bad aid (as for GET /agents/{aid})."),
        ...adminErrors,
        ...notFound,
      },
    },
    post: {
      operationId: "runNow",
      summary:
        "Run the agent's autonomous prompt now, outside its schedule (which it leaves as it is); answers once the run has finished.",
      security: ADMIN,
      requestParams: { path: aidInputSchema },
      responses: {
        "202": { description: "The run, finished.", content: json(runSchema, examples.run) },
        ...badAid,
        ...adminErrors,
        ...notFound,
        "409": problem("The agent has no autonomous_prompt.", examples.noAutonomousPrompt),
      },
    },
  },
};
