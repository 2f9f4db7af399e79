import { z } from "zod";
import { INT4_MAX } from "@/server/kit/bounds";
import { isoDateTime } from "@/server/kit/iso-date-time";

const MAX_LIMIT = INT4_MAX;

/** What a limit takes, in full: a refusal names the maximum as well as the minimum. */
const limitRule = (max: number, what = "") =>
  `must be a whole number ${what}from 0 to ${max.toLocaleString("en")}, or null for unlimited`;

const quotaRule = limitRule(MAX_LIMIT);
const quotaLimit = z
  // Past JS's safe integers a number fails `int` and `max` alike: one refusal is enough.
  .int({ error: quotaRule, abort: true })
  .min(0, quotaRule)
  .max(MAX_LIMIT, quotaRule)
  .nullable();

/** A token budget may be larger than a counter of uses: tokens are counted in bigint. */
const tokenRule = limitRule(Number.MAX_SAFE_INTEGER, "of tokens ");
const tokenLimit = z
  .int({ error: tokenRule, abort: true })
  .min(0, tokenRule)
  .max(Number.MAX_SAFE_INTEGER, tokenRule)
  .nullable()
  .meta({ description: "Input + output tokens; null = unlimited." });

export const QUOTA_LIMIT_FIELDS = [
  "message_limit_total",
  "message_limit_monthly",
  "message_limit_daily",
  "autonomous_limit_total",
  "autonomous_limit_monthly",
  "token_limit_total",
  "token_limit_monthly",
  "token_limit_daily",
] as const;

export type QuotaLimitField = (typeof QUOTA_LIMIT_FIELDS)[number];

export const quotaLimitsInputSchema = z
  .strictObject({
    message_limit_total: quotaLimit.optional(),
    message_limit_monthly: quotaLimit.optional(),
    message_limit_daily: quotaLimit.optional(),
    autonomous_limit_total: quotaLimit.optional(),
    autonomous_limit_monthly: quotaLimit.optional(),
    token_limit_total: tokenLimit.optional(),
    token_limit_monthly: tokenLimit.optional(),
    token_limit_daily: tokenLimit.optional(),
  })
  .meta({ description: "Quota limits to set; null = unlimited. Omitted limits keep their value." });

export const quotaSchema = z
  .object({
    message_count_total: z.int(),
    message_limit_total: z.int().nullable(),
    message_count_monthly: z.int(),
    message_limit_monthly: z.int().nullable(),
    message_count_daily: z.int(),
    message_limit_daily: z.int().nullable(),
    autonomous_count_total: z.int(),
    autonomous_limit_total: z.int().nullable(),
    autonomous_count_monthly: z.int(),
    autonomous_limit_monthly: z.int().nullable(),
    input_tokens_total: z.int(),
    output_tokens_total: z.int(),
    cost_total: z.number(),
    token_limit_total: z.int().nullable(),
    input_tokens_monthly: z.int(),
    output_tokens_monthly: z.int(),
    cost_monthly: z.number(),
    token_limit_monthly: z.int().nullable(),
    input_tokens_daily: z.int(),
    output_tokens_daily: z.int(),
    cost_daily: z.number(),
    token_limit_daily: z.int().nullable(),
    last_message_at: isoDateTime.nullable(),
    last_autonomous_at: isoDateTime.nullable(),
    daily_resets_at: isoDateTime,
    monthly_resets_at: isoDateTime,
  })
  .meta({
    id: "Quota",
    description:
      "Effective counts (a period that has rolled over counts 0) and limits (null = unlimited). Daily counters reset at 00:00 UTC, monthly ones on the 1st at 00:00 UTC. Tokens are those of delivered replies and succeeded runs; a token limit bounds input + output tokens. Costs are at the prices of `GET /prices` when each reply was stored (unpriced models add nothing).",
  });

export type Quota = z.infer<typeof quotaSchema>;

/** The counters, by the names a quota reset takes (a token counter's reset clears its cost too). */
export const QUOTA_COUNTERS = [
  "message_total",
  "message_monthly",
  "message_daily",
  "autonomous_total",
  "autonomous_monthly",
  "token_total",
  "token_monthly",
  "token_daily",
] as const;

export type QuotaCounterName = (typeof QUOTA_COUNTERS)[number];
