import { type UsageSeries, usageCsv as usageCsvText } from "@/server/usage";
import { csvResponse } from "./csv";

/** A usage series as CSV: one line per bucket (`Accept: text/csv`); server/usage/view.ts writes it. */
export function usageCsv(series: UsageSeries, name: string): Response {
  const { text, filename } = usageCsvText(series, name);
  return csvResponse(text, filename);
}
