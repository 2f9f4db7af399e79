import { agentSchema } from "@/server/agents";
import { ADMIN, adminErrors, jsonBodyErrors, problem } from "../documented";
import { endpoint } from "../endpoint";
import { empty, json } from "../response";
import * as examples from "./examples-agents";

const notFound = { 404: problem("Unknown agent.", examples.agentNotFound) };
export const badAid = {
  400: problem("The aid holds the NUL character, is too long, or has a malformed percent-escape."),
};

export const agentEndpoints = [
  endpoint({
    method: "GET",
    path: "/agents",
    procedure: (p) => p.agents.list,
    operationId: "listAgents",
    summary: "List agents with their quotas (keyset pagination, search by aid or name).",
    security: ADMIN,
    answers: { 200: { description: "One page of agents.", examples: examples.agentList } },
    refusals: { 400: problem("Invalid query parameter."), ...adminErrors },
  }),
  endpoint({
    method: "POST",
    path: "/agents",
    procedure: (p) => p.agents.upsert,
    operationId: "upsertAgent",
    summary: "Create an agent, or update the fields given (omitted fields keep their value).",
    security: ADMIN,
    body: { required: true, examples: examples.upsertAgent },
    // The procedure says whether it created the agent; the answer is the agent, 201 or 200.
    handle: async ({ call, input }) => {
      const { created, agent } = await call(input);
      return json(agent, created ? 201 : 200);
    },
    answers: {
      200: { description: "Updated.", schema: agentSchema, examples: examples.agentUpdated },
      201: { description: "Created.", schema: agentSchema, examples: examples.agentCreated },
    },
    refusals: {
      400: problem(
        "Invalid agent ID format, invalid fields, or malformed JSON.",
        examples.invalidFields,
      ),
      ...adminErrors,
      ...jsonBodyErrors,
      500: problem("Database failure; nothing was written."),
    },
  }),
  endpoint({
    method: "GET",
    path: "/agents/{aid}",
    procedure: (p) => p.agents.get,
    operationId: "getAgent",
    summary: "One agent with its quota.",
    security: ADMIN,
    answers: { 200: { description: "The agent.", examples: examples.agent } },
    refusals: { ...badAid, ...adminErrors, ...notFound },
  }),
  endpoint({
    method: "DELETE",
    path: "/agents/{aid}",
    procedure: (p) => p.agents.delete,
    operationId: "deleteAgent",
    summary:
      "Delete the agent: its quota, threads and messages, runs, keys and rate-limit windows go with it; chats in flight fail and count nothing. The aid may be used again at once.",
    security: ADMIN,
    handle: async ({ call, input }) => {
      await call(input);
      return empty(204);
    },
    answers: { 204: { description: "Deleted.", empty: true } },
    refusals: { ...badAid, ...adminErrors, ...notFound },
  }),
  endpoint({
    method: "POST",
    path: "/agents/{aid}/quota/reset",
    procedure: (p) => p.agents.resetQuota,
    operationId: "resetQuota",
    summary: "Set counters back to 0 (the limits stay): those named, or all of them.",
    security: ADMIN,
    body: { required: false, examples: examples.resetQuota },
    answers: {
      200: { description: "The agent after the reset.", examples: examples.agentAfterReset },
    },
    refusals: {
      400: problem("Unknown counter name, malformed JSON, or a bad aid (as for GET)."),
      ...adminErrors,
      ...notFound,
      ...jsonBodyErrors,
    },
  }),
  endpoint({
    method: "GET",
    path: "/agents/{aid}/tools",
    procedure: (p) => p.tools.list,
    operationId: "listAgentTools",
    summary:
      "Each of the agent's MCP servers with its tools as the server describes them now (asked at once, not from a cache), and whether allowed_tools lets the agent call each. A server whose tools cannot be listed has the status a tool call of it would have (timeout, refused, error, unreachable) and, in `error`, the sentence the model would be told, never what the server sent.",
    security: ADMIN,
    answers: { 200: { description: "The servers and their tools." } },
    refusals: { ...badAid, ...adminErrors, ...notFound },
  }),
];
