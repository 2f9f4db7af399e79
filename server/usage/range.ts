import { AppError } from "@/server/frame/errors";
import { type Granularity, MAX_BUCKETS } from "./schema";

/**
 * The buckets of a usage query: `from` rounded down and `to` rounded up to whole UTC days or
 * hours, at most MAX_BUCKETS of them (the rest is the next page, from `nextFrom`).
 */
export type UsageRange = { from: Date; to: Date; starts: Date[]; nextFrom: Date | null };

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const STEP_MS: Record<Granularity, number> = { day: DAY_MS, hour: HOUR_MS };
const DEFAULT_SPAN: Record<Granularity, number> = { day: 30, hour: 24 };

export function usageRange(
  input: { from?: Date; to?: Date; granularity: Granularity },
  now: Date,
): UsageRange {
  const step = STEP_MS[input.granularity];
  const floor = (at: Date) => Math.floor(at.getTime() / step) * step;
  const ceil = (at: Date) => Math.ceil(at.getTime() / step) * step;
  const to = input.to ? ceil(input.to) : floor(now) + step;
  const from = input.from ? floor(input.from) : to - DEFAULT_SPAN[input.granularity] * step;
  if (from >= to)
    throw new AppError("validation_failed", "The range is empty: `from` must come before `to`.", {
      errors: [{ field: "from", detail: "must come before `to`" }],
    });
  const buckets = Math.min((to - from) / step, MAX_BUCKETS[input.granularity]);
  const end = from + buckets * step;
  return {
    from: new Date(from),
    to: new Date(end),
    starts: Array.from({ length: buckets }, (_, i) => new Date(from + i * step)),
    nextFrom: end < to ? new Date(end) : null,
  };
}
