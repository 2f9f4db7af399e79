import { z } from "zod";

/** Tokens of one model call, as stored with a reply or a run and sent to clients. */
export const usageSchema = z
  .object({
    input_tokens: z.int().min(0),
    output_tokens: z.int().min(0),
    estimated: z.boolean().meta({
      description:
        "true when the provider reported no usage and the counts are estimated (4 characters a token)",
    }),
    cost: z.number().nullable().meta({
      description:
        "What the tokens cost at the model's price when the reply was stored (GET /prices); null when the model had no price.",
    }),
  })
  .meta({ id: "TokenUsage" });

/** The tokens of one model call, as the call reports them (it is priced when stored). */
export type Usage = Omit<z.infer<typeof usageSchema>, "cost">;
export type PricedUsage = z.infer<typeof usageSchema>;

/**
 * A rule of thumb for English text with OpenAI's tokenizers: for the tokens of a reply whose
 * provider reported none, and for the input a chat holds against its budgets before it starts.
 */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Usage as stored on a reply or run row; null where none was kept (questions, older rows). */
export function storedUsage(row: {
  inputTokens: number | null;
  outputTokens: number | null;
  tokensEstimated: boolean | null;
  cost: number | null;
}): PricedUsage | null {
  if (row.inputTokens === null || row.outputTokens === null) return null;
  return {
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    estimated: row.tokensEstimated ?? true,
    cost: row.cost === null ? null : Number(row.cost),
  };
}
