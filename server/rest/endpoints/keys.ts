import { ADMIN, adminErrors, jsonBodyErrors, problem } from "../documented";
import { endpoint } from "../endpoint";
import { empty } from "../response";
import * as examples from "./examples-admin";

export const keyEndpoints = [
  endpoint({
    method: "GET",
    path: "/agents/{aid}/keys",
    procedure: (p) => p.keys.list,
    operationId: "listAgentKeys",
    summary: "An agent's caller keys, without their secrets, with when each was last used.",
    security: ADMIN,
    answers: { 200: { description: "The keys.", examples: examples.keyList } },
    refusals: {
      400: problem("A bad aid (as for GET /agents/{aid})."),
      ...adminErrors,
      404: problem("Unknown agent."),
    },
  }),
  endpoint({
    method: "POST",
    path: "/agents/{aid}/keys",
    procedure: (p) => p.keys.create,
    operationId: "createAgentKey",
    summary: "Make a caller key for the agent; the key is in the answer, and only there.",
    security: ADMIN,
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
  endpoint({
    method: "DELETE",
    path: "/agents/{aid}/keys/{id}",
    procedure: (p) => p.keys.revoke,
    operationId: "revokeAgentKey",
    summary: "Revoke a key: every instance refuses it from now on.",
    security: ADMIN,
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
];
