import { z } from "zod";
import { storableString } from "@/server/kit/text";

// Agents appear as models to OpenAI clients: these are OpenAI's model objects.

export const MODELS_PAGE_MAX = 1000;

export const modelSchema = z
  .object({
    id: z.string().meta({ description: "The agent's aid: what `model` names in a completion." }),
    object: z.literal("model"),
    created: z.int().meta({ description: "When the agent was created, in Unix seconds." }),
    owned_by: z.literal("agent-service"),
  })
  .meta({ id: "Model" });

export type Model = z.infer<typeof modelSchema>;

/** `model` of a completion or a response: the agent to ask. */
export const askedModelSchema = z
  .string({ error: "is required: the aid of the agent to ask (GET /v1/models lists them)" })
  .min(1, "is required: the aid of the agent to ask (GET /v1/models lists them)")
  .max(200, "must be at most 200 characters")
  .meta({ description: "The aid of the agent to ask (GET /v1/models lists them)." });

export const listModelsInputSchema = z.strictObject({
  limit: z.coerce
    .number({ error: `must be a whole number from 1 to ${MODELS_PAGE_MAX}` })
    .int(`must be a whole number from 1 to ${MODELS_PAGE_MAX}`)
    .min(1, `must be a whole number from 1 to ${MODELS_PAGE_MAX}`)
    .max(MODELS_PAGE_MAX, `must be a whole number from 1 to ${MODELS_PAGE_MAX}`)
    .default(MODELS_PAGE_MAX)
    .meta({
      description: `Models a page holds, 1 to ${MODELS_PAGE_MAX} (default ${MODELS_PAGE_MAX}).`,
    }),
  after: storableString()
    .max(200, "must be at most 200 characters")
    .optional()
    .meta({ description: "The page after this model id (the `last_id` of the page before)." }),
});

export const listModelsOutputSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(modelSchema),
    has_more: z.boolean().meta({ description: "Whether a page follows (ask with after=last_id)." }),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
  })
  .meta({ id: "ModelList" });

export type ModelList = z.infer<typeof listModelsOutputSchema>;

export const getModelInputSchema = z.strictObject({
  model: storableString()
    .min(1, "is required")
    .max(200, "must be at most 200 characters")
    .meta({ description: "An agent's aid." }),
});
