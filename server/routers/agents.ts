import { z } from "zod";
import {
  agentInputSchema,
  agentNotFound,
  agentSchema,
  deleteAgent,
  getAgent,
  listAgents,
  listAgentsInputSchema,
  listAgentsOutputSchema,
  resetQuotaInputSchema,
  upsertAgent,
  upsertAgentOutputSchema,
} from "@/server/agents";
import { operatorProcedure, router, viewerProcedure } from "@/server/frame/trpc";
import { adminErrors, empty, json, jsonBodyErrors, problem, rest } from "@/server/http";
import { aidInputSchema } from "@/server/kit/agent-id";
import { resetQuotaCounts } from "@/server/quota";
import * as examples from "./examples-agents";

/** The admin's agent paths: the agents, one agent, its quota and its tools. */

export const notFound = { 404: problem("Unknown agent.", examples.agentNotFound) };
export const badAid = {
  400: problem("The aid holds the NUL character, is too long, or has a malformed percent-escape."),
};

export const agentsRouter = router({
  upsert: operatorProcedure
    .meta(
      rest<z.output<typeof upsertAgentOutputSchema>>({
        method: "POST",
        path: "/agents",
        idempotent: true,
        operationId: "upsertAgent",
        summary: "Create an agent, or update the fields given (omitted fields keep their value).",
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
    )
    .input(agentInputSchema)
    .output(upsertAgentOutputSchema)
    .mutation(({ ctx, input }) => upsertAgent(ctx, input)),

  /** The dashboard's "New agent": like upsert, but an aid in use is refused (409), not updated. */
  create: operatorProcedure
    .input(agentInputSchema)
    .output(agentSchema)
    .mutation(
      async ({ ctx, input }) => (await upsertAgent(ctx, input, { createOnly: true })).agent,
    ),

  list: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/agents",
        operationId: "listAgents",
        summary: "List agents with their quotas (keyset pagination, search by aid or name).",
        answers: { 200: { description: "One page of agents.", examples: examples.agentList } },
        refusals: { 400: problem("Invalid query parameter."), ...adminErrors },
      }),
    )
    .input(listAgentsInputSchema)
    .output(listAgentsOutputSchema)
    .query(({ ctx, input }) => listAgents(ctx, input)),

  resetQuota: operatorProcedure
    .meta(
      rest({
        method: "POST",
        path: "/agents/{aid}/quota/reset",
        operationId: "resetQuota",
        summary: "Set counters back to 0 (the limits stay): those named, or all of them.",
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
    )
    .input(resetQuotaInputSchema)
    .output(agentSchema)
    .mutation(async ({ ctx, input }) => {
      if (!(await resetQuotaCounts(ctx, input.aid, input.counters))) throw agentNotFound(input.aid);
      return getAgent(ctx, input.aid);
    }),

  /** Deletes the agent with its threads, runs and keys; the aid may be used again. */
  delete: operatorProcedure
    .meta(
      rest({
        method: "DELETE",
        path: "/agents/{aid}",
        operationId: "deleteAgent",
        summary:
          "Delete the agent: its quota, threads and messages, runs, keys and rate-limit windows go with it; chats in flight fail and count nothing. The aid may be used again at once.",
        handle: async ({ call, input }) => {
          await call(input);
          return empty(204);
        },
        answers: { 204: { description: "Deleted.", empty: true } },
        refusals: { ...badAid, ...adminErrors, ...notFound },
      }),
    )
    .input(aidInputSchema)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteAgent(ctx, input.aid)),

  get: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/agents/{aid}",
        operationId: "getAgent",
        summary: "One agent with its quota.",
        answers: { 200: { description: "The agent.", examples: examples.agent } },
        refusals: { ...badAid, ...adminErrors, ...notFound },
      }),
    )
    .input(aidInputSchema)
    .output(agentSchema)
    .query(({ ctx, input }) => getAgent(ctx, input.aid)),
});
