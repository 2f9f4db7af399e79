import type { UsageSeries } from "@/server/usage";
import { csvResponse } from "./csv";

const COLUMNS = [
  "start",
  "messages",
  "runs",
  "input_tokens",
  "output_tokens",
  "cost",
  "unpriced",
  "refused_quota",
  "refused_rate",
] as const;

/** A usage series as CSV: one line per bucket (`Accept: text/csv`). */
export function usageCsv(series: UsageSeries, name: string): Response {
  const day = (iso: string) => iso.slice(0, 10);
  return csvResponse(COLUMNS, series.points, `${name}-${day(series.from)}-${day(series.to)}.csv`);
}
