import { csvField } from "@/server/kit/csv";
import type { UsageSeries } from "./schema";

// A usage series as CSV, the same file for the API and the dashboard's download; the browser loads
// it, so no zod and nothing server-only.

export const USAGE_CSV_COLUMNS = [
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

type Cell = string | number | null;

/** RFC 4180 text: a header line, then one line per bucket, CRLF line ends, quoted where needed. */
export function usageCsv(
  series: Pick<UsageSeries, "points" | "from" | "to">,
  name: string,
): { text: string; filename: string } {
  const rows = series.points as unknown as Record<string, Cell>[];
  const lines = [
    USAGE_CSV_COLUMNS.map(csvField),
    ...rows.map((row) => USAGE_CSV_COLUMNS.map((column) => csvField(row[column] ?? null))),
  ];
  const day = (iso: string) => iso.slice(0, 10);
  return {
    text: `${lines.map((line) => line.join(",")).join("\r\n")}\r\n`,
    filename: `${name}-${day(series.from)}-${day(series.to)}.csv`,
  };
}
