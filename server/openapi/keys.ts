import type { ZodOpenApiPathsObject } from "zod-openapi";
import {
  createdKeySchema,
  createKeyInputSchema,
  listKeysInputSchema,
  listKeysOutputSchema,
  revokeKeyInputSchema,
} from "@/server/keys";
import * as examples from "./examples-admin";
import { ADMIN, adminErrors, json, jsonBodyErrors, problem, split } from "./parts";

/** An agent's caller keys (admin). */

const create = split(createKeyInputSchema, ["aid"]);

export const keyPaths: ZodOpenApiPathsObject = {
  "/agents/{aid}/keys": {
    get: {
      operationId: "listAgentKeys",
      summary: "An agent's caller keys, without their secrets, with when each was last used.",
      security: ADMIN,
      requestParams: { path: listKeysInputSchema },
      responses: {
        "200": { description: "The keys.", content: json(listKeysOutputSchema, examples.keyList) },
        "400": problem("A bad aid (as for GET /agents/{aid})."),
        ...adminErrors,
        "404": problem("Unknown agent."),
      },
    },
    post: {
      operationId: "createAgentKey",
      summary: "Make a caller key for the agent; the key is in the answer, and only there.",
      security: ADMIN,
      requestParams: { path: create.path },
      requestBody: { required: true, content: json(create.rest, examples.createKey) },
      responses: {
        "201": { description: "Made.", content: json(createdKeySchema, examples.createdKey) },
        "400": problem("Missing or invalid name, malformed JSON, or a bad aid."),
        ...adminErrors,
        "404": problem("Unknown agent."),
        "409": problem("The agent has as many keys as it may."),
        ...jsonBodyErrors,
      },
    },
  },
  "/agents/{aid}/keys/{id}": {
    delete: {
      operationId: "revokeAgentKey",
      summary: "Revoke a key: every instance refuses it from now on.",
      security: ADMIN,
      requestParams: { path: revokeKeyInputSchema },
      responses: {
        "204": { description: "Revoked." },
        "400": problem(
          "A bad aid or key id (the NUL character, too long, a malformed percent-escape).",
        ),
        ...adminErrors,
        "404": problem("Unknown agent, or no such key.", examples.noSuchKey),
      },
    },
  },
};
