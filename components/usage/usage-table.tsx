import type { UsageSeries } from "@/server/usage/schema";
import { formatUtcDay, formatUtcHour } from "../ui/dates";
import { formatCost, formatNumber } from "../ui/format";
import { Table, Td, Th } from "../ui/table";

/**
 * Every bucket of a usage series as a table, newest first (today at the top, where a reader
 * looks first): the charts' text alternative.
 */
export function UsageTable({ series }: { series: UsageSeries }) {
  const hourly = series.granularity === "hour";
  return (
    <Table
      layout="scroll"
      scrollLabel={`Usage by ${hourly ? "hour" : "day"}`}
      data-testid="usage-table"
    >
      <caption className="sr-only">Usage by {hourly ? "hour" : "day"} (UTC)</caption>
      <thead>
        <tr>
          <Th scope="col">{hourly ? "Hour" : "Day"}</Th>
          <Th scope="col" numeric>
            Messages
          </Th>
          <Th scope="col" numeric>
            Runs
          </Th>
          <Th scope="col" numeric>
            Tokens in
          </Th>
          <Th scope="col" numeric>
            Tokens out
          </Th>
          <Th scope="col" numeric>
            Cost
          </Th>
          <Th scope="col" numeric>
            Refused (limit / rate)
          </Th>
        </tr>
      </thead>
      <tbody>
        {series.points.toReversed().map((point) => (
          <tr key={point.start}>
            <Th scope="row">{hourly ? formatUtcHour(point.start) : formatUtcDay(point.start)}</Th>
            <Td numeric>{formatNumber(point.messages)}</Td>
            <Td numeric>{formatNumber(point.runs)}</Td>
            <Td numeric>{formatNumber(point.input_tokens)}</Td>
            <Td numeric>{formatNumber(point.output_tokens)}</Td>
            <Td numeric>{point.cost === null ? "no price" : formatCost(point.cost)}</Td>
            <Td numeric>
              {formatNumber(point.refused_quota)} / {formatNumber(point.refused_rate)}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
