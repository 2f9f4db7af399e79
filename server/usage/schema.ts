import { z } from "zod";
import { lookupAidSchema } from "@/server/kit/agent-id";
import { instant as boundedInstant, INSTANT_RANGE, wholeNumberParam } from "@/server/kit/bounds";
import { isoDateTime } from "@/server/kit/iso-date-time";

export const GRANULARITIES = ["day", "hour"] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/** The most buckets one answer holds; a longer range is paged by `next_from`. */
export const MAX_BUCKETS: Record<Granularity, number> = { day: 366, hour: 744 };

const instant = boundedInstant().transform((value) => new Date(value));

const rangeFields = {
  from: instant.optional().meta({
    description: `Start of the range (${INSTANT_RANGE}), rounded down to its day or hour (UTC). Default: 30 days (by day) or 24 hours (by hour) before \`to\`.`,
  }),
  to: instant.optional().meta({
    description: `End of the range (${INSTANT_RANGE}), rounded up to its day or hour (UTC). Default: now.`,
  }),
  granularity: z
    .enum(GRANULARITIES, { error: "must be `day` or `hour`" })
    .default("day")
    .meta({ description: "Buckets of a UTC day or hour." }),
};

export const agentUsageInputSchema = z.strictObject({ aid: lookupAidSchema, ...rangeFields });

export const allUsageInputSchema = z.strictObject({
  ...rangeFields,
  top: wholeNumberParam(1, 100)
    .default(10)
    .meta({ description: "How many of the top agents (by tokens) one page lists." }),
  cursor: z
    .string()
    .max(200)
    .optional()
    .meta({ description: "From `next_cursor`: the next agents." }),
});

const figures = {
  messages: z.int().meta({ description: "Chat replies delivered." }),
  runs: z.int().meta({ description: "Autonomous runs that succeeded." }),
  input_tokens: z.int(),
  output_tokens: z.int(),
  cost: z.number().nullable().meta({
    description:
      "What the tokens cost at their models' prices when stored; null when none of the replies had a price (`unpriced` counts those without one).",
  }),
  unpriced: z.int().meta({ description: "Replies and runs whose model had no price." }),
};

export const usageTotalsSchema = z
  .object({
    ...figures,
    refused_quota: z.int().meta({ description: "Chats refused by a message or token limit." }),
    refused_rate: z.int().meta({ description: "Chats refused by the rate limit." }),
  })
  .meta({ id: "UsageTotals" });

export const usagePointSchema = usageTotalsSchema
  .extend({ start: isoDateTime.meta({ description: "The bucket's first instant (UTC)." }) })
  .meta({ id: "UsagePoint" });

const seriesFields = {
  granularity: z.enum(GRANULARITIES),
  from: isoDateTime,
  to: isoDateTime,
  points: z.array(usagePointSchema).meta({ description: "One per bucket, empty ones included." }),
  totals: usageTotalsSchema,
  next_from: isoDateTime.nullable().meta({
    description:
      "The range asked for holds more buckets than one answer (366 days, 744 hours): ask again with this `from` for the rest.",
  }),
};

export const agentUsageOutputSchema = z
  .object({ aid: z.string(), ...seriesFields })
  .meta({ id: "AgentUsage" });

export const agentUsageSummarySchema = z
  .object({ aid: z.string(), name: z.string(), ...figures })
  .meta({ id: "AgentUsageSummary" });

export const allUsageOutputSchema = z
  .object({
    ...seriesFields,
    top_agents: z.array(agentUsageSummarySchema).meta({
      description: "The agents that used the most tokens in the range, most first.",
    }),
    next_cursor: z.string().nullable(),
  })
  .meta({ id: "Usage" });

export type UsagePoint = z.infer<typeof usagePointSchema>;
export type UsageSeries = Pick<z.infer<typeof agentUsageOutputSchema>, keyof typeof seriesFields>;
