import { z } from "zod";
import { isoDateTime } from "@/server/kit/iso-date-time";
import { NUL_RULE, withoutNul } from "@/server/kit/text";

const PRICE_RULE = "must be a number from 0 to 1,000,000: the price of a million tokens";

const perMillion = z
  .number({ error: PRICE_RULE })
  .min(0, PRICE_RULE)
  .max(1_000_000, PRICE_RULE)
  .meta({ description: "Price of one million tokens, in your currency." });

export const modelNameSchema = z
  .string({ error: "must be a model name, 1 to 200 characters" })
  .trim()
  .min(1, "must be a model name, 1 to 200 characters")
  .max(200, "must be at most 200 characters")
  .refine(withoutNul, NUL_RULE)
  .meta({
    description:
      "The model name, as agents name it (`model`, or LLM_MODEL); in a URL's path, a `/` in it is percent-encoded as %2F.",
    examples: ["gpt-4o-mini"],
  });

export const setPriceInputSchema = z.strictObject({
  model: modelNameSchema,
  input_per_million: perMillion,
  output_per_million: perMillion,
});

export const priceSchema = z
  .object({
    model: z.string(),
    input_per_million: z.number(),
    output_per_million: z.number(),
    updated_at: isoDateTime,
  })
  .meta({ id: "ModelPrice" });

export const listPricesOutputSchema = z
  .object({ prices: z.array(priceSchema) })
  .meta({ id: "ModelPriceList" });

export const deletePriceInputSchema = z.strictObject({ model: modelNameSchema });
