import { z } from "zod";
import {
  agentKeyRefSchema,
  agentKeySchema,
  createdKeySchema,
  createKey,
  createKeyInputSchema,
  getKey,
  listKeys,
  listKeysInputSchema,
  listKeysOutputSchema,
  revokeKey,
} from "@/server/agent-keys";
import { operatorProcedure, router, viewerProcedure } from "@/server/frame/trpc";
import { adminErrors, empty, jsonBodyErrors, problem, rest } from "@/server/http";
import * as examples from "./examples-admin";

/** An agent's agent keys (admin). */

export const agentKeysRouter = router({
  create: operatorProcedure
    .meta(
      rest({
        method: "POST",
        path: "/agents/{aid}/keys",
        idempotent: true,
        operationId: "createAgentKey",
        summary: "Make an agent key; the key is in the answer, and only there.",
        body: { required: true, examples: examples.createKey },
        status: 201,
        answers: { 201: { description: "Made.", examples: examples.createdKey } },
        refusals: {
          400: problem("Missing or invalid name, malformed JSON, or a bad aid."),
          ...adminErrors,
          404: problem("Unknown agent."),
          409: problem("The agent has as many keys as it may."),
          ...jsonBodyErrors,
        },
      }),
    )
    .input(createKeyInputSchema)
    .output(createdKeySchema)
    .mutation(({ ctx, input }) => createKey(ctx, input)),

  list: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/agents/{aid}/keys",
        operationId: "listAgentKeys",
        summary: "The agent's keys, without their secrets, with when each was last used.",
        answers: { 200: { description: "The keys.", examples: examples.keyList } },
        refusals: {
          400: problem("A bad aid (as for GET /agents/{aid})."),
          ...adminErrors,
          404: problem("Unknown agent."),
        },
      }),
    )
    .input(listKeysInputSchema)
    .output(listKeysOutputSchema)
    .query(({ ctx, input }) => listKeys(ctx, input.aid)),

  get: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/agents/{aid}/keys/{id}",
        operationId: "getAgentKey",
        summary: "One of the agent's keys, without its secret, with when it was last used.",
        answers: { 200: { description: "The key." } },
        refusals: {
          400: problem("A bad aid or key id."),
          ...adminErrors,
          404: problem(
            "Unknown agent, or no such key (a revoked key is none).",
            examples.noSuchKey,
          ),
        },
      }),
    )
    .input(agentKeyRefSchema)
    .output(agentKeySchema)
    .query(({ ctx, input }) => getKey(ctx, input)),

  revoke: operatorProcedure
    .meta(
      rest({
        method: "DELETE",
        path: "/agents/{aid}/keys/{id}",
        operationId: "revokeAgentKey",
        summary: "Revoke a key: every instance refuses it from now on.",
        handle: async ({ call, input }) => {
          await call(input);
          return empty(204);
        },
        answers: { 204: { description: "Revoked.", empty: true } },
        refusals: {
          400: problem(
            "A bad aid or key id (the NUL character, too long, a malformed percent-escape).",
          ),
          ...adminErrors,
          404: problem("Unknown agent, or no such key.", examples.noSuchKey),
        },
      }),
    )
    .input(agentKeyRefSchema)
    .output(z.void())
    .mutation(({ ctx, input }) => revokeKey(ctx, input)),
});
