import type { UsageSeries } from "@/server/usage/schema";
import { formatCost, formatNumber } from "../ui/format";

const dayOrHour = (iso: string, hourly: boolean) =>
  hourly ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso.slice(0, 10);

/** Every bucket of a usage series as a table: the charts' text alternative. */
export function UsageTable({ series }: { series: UsageSeries }) {
  const hourly = series.granularity === "hour";
  return (
    <div className="table-scroll">
      <table data-testid="usage-table">
        <caption className="sr-only">Usage by {hourly ? "hour" : "day"} (UTC)</caption>
        <thead>
          <tr>
            <th scope="col">{hourly ? "Hour" : "Day"}</th>
            <th scope="col">Messages</th>
            <th scope="col">Runs</th>
            <th scope="col">Tokens in</th>
            <th scope="col">Tokens out</th>
            <th scope="col">Cost</th>
            <th scope="col">Refused (limit / rate)</th>
          </tr>
        </thead>
        <tbody>
          {series.points.map((point) => (
            <tr key={point.start}>
              <th scope="row">{dayOrHour(point.start, hourly)}</th>
              <td>{formatNumber(point.messages)}</td>
              <td>{formatNumber(point.runs)}</td>
              <td>{formatNumber(point.input_tokens)}</td>
              <td>{formatNumber(point.output_tokens)}</td>
              <td>{point.cost === null ? "no price" : formatCost(point.cost)}</td>
              <td>
                {formatNumber(point.refused_quota)} / {formatNumber(point.refused_rate)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
