import { type UsageSeries, usageCsv as usageCsvText } from "@/server/usage";
import { csvResponse } from "./csv";

/** A usage series as CSV (`Accept: text/csv`), written by server/usage/view.ts. */
export function usageCsv(series: UsageSeries, name: string): Response {
  const { text, filename } = usageCsvText(series, name);
  return csvResponse(text, filename);
}
