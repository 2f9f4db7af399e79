import type { UsageSeries } from "@/server/usage/schema";
import { formatCost, formatNumber } from "../ui/format";
import { Table, Td, Th } from "../ui/table";

const dayOrHour = (iso: string, hourly: boolean) =>
  hourly ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso.slice(0, 10);

/** Every bucket of a usage series as a table: the charts' text alternative. */
export function UsageTable({ series }: { series: UsageSeries }) {
  const hourly = series.granularity === "hour";
  return (
    <Table layout="scroll" data-testid="usage-table">
      <caption className="sr-only">Usage by {hourly ? "hour" : "day"} (UTC)</caption>
      <thead>
        <tr>
          <Th scope="col">{hourly ? "Hour" : "Day"}</Th>
          <Th scope="col">Messages</Th>
          <Th scope="col">Runs</Th>
          <Th scope="col">Tokens in</Th>
          <Th scope="col">Tokens out</Th>
          <Th scope="col">Cost</Th>
          <Th scope="col">Refused (limit / rate)</Th>
        </tr>
      </thead>
      <tbody>
        {series.points.map((point) => (
          <tr key={point.start}>
            <Th scope="row">{dayOrHour(point.start, hourly)}</Th>
            <Td>{formatNumber(point.messages)}</Td>
            <Td>{formatNumber(point.runs)}</Td>
            <Td>{formatNumber(point.input_tokens)}</Td>
            <Td>{formatNumber(point.output_tokens)}</Td>
            <Td>{point.cost === null ? "no price" : formatCost(point.cost)}</Td>
            <Td>
              {formatNumber(point.refused_quota)} / {formatNumber(point.refused_rate)}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
