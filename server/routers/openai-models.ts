import { publicProcedure, router } from "@/server/frame/trpc";
import { openAiRefusal, rest } from "@/server/http";
import {
  getModel,
  getModelInputSchema,
  listModels,
  listModelsInputSchema,
  listModelsOutputSchema,
  modelSchema,
} from "@/server/openai-models";
import * as examples from "./examples-completions";

/**
 * GET /v1/models and /v1/models/{model}: the agents a caller may chat with, as OpenAI's models
 * (public: each caller sees its own). Refusals in OpenAI's error form.
 */

/** Anyone; with the admin key every agent, with an agent key its agent. */
export const ANYONE_OR_KEY: Record<string, string[]>[] = [{}, { agentKey: [] }, { adminKey: [] }];

const unavailable = {
  503: openAiRefusal("database_unavailable: the database cannot be used right now; Retry-After."),
};
const badKey = {
  401: openAiRefusal(
    "invalid_api_key: the bearer token starts as an agent key does (`ak_`) but is no agent's key (wrong, malformed or revoked).",
  ),
};

export const openaiModelsRouter = router({
  /** Public: what each caller sees is the agents it may chat with (server/models). */
  list: publicProcedure
    .meta(
      rest({
        method: "GET",
        path: "/v1/models",
        operationId: "listModels",
        summary: "The agents this caller may chat with, as OpenAI's models (ids are aids).",
        description:
          "With the admin key: every agent. With an agent key: its agent. Without (or with a bearer token that is neither): the agents whose chat_access is public. In aid order; a page holds `limit` (default and most 1,000), and `after` (the page's last_id) asks for the next.",
        security: ANYONE_OR_KEY,
        errors: "openai",
        answers: { 200: { description: "The models.", examples: examples.models } },
        refusals: {
          400: openAiRefusal("A bad limit or after."),
          ...badKey,
          ...unavailable,
        },
      }),
    )
    .input(listModelsInputSchema)
    .output(listModelsOutputSchema)
    .query(({ ctx, input }) => listModels(ctx, input)),

  get: publicProcedure
    .meta(
      rest({
        method: "GET",
        path: "/v1/models/{model}",
        operationId: "getModel",
        summary: "One agent as an OpenAI model, if this caller may chat with it.",
        security: ANYONE_OR_KEY,
        errors: "openai",
        answers: { 200: { description: "The model.", examples: examples.model } },
        refusals: {
          400: openAiRefusal("The model id holds the NUL character or is too long."),
          ...badKey,
          404: openAiRefusal(
            "model_not_found: no agent has this id, or this caller may not chat with it.",
          ),
          ...unavailable,
        },
      }),
    )
    .input(getModelInputSchema)
    .output(modelSchema)
    .query(({ ctx, input }) => getModel(ctx, input.model)),
});
