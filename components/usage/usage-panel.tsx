"use client";

import { useMemo, useState } from "react";
import type { UsageSeries } from "@/server/usage/schema";
import { Button } from "../ui/button";
import { formatCost, formatNumber, plural } from "../ui/format";
import { Panel } from "../ui/panel";
import type { ChartUnit } from "./chart-format";
import { LazyUsageChart } from "./lazy-usage-chart";
import type { ChartLine } from "./usage-chart";
import styles from "./usage-panel.module.css";
import { UsageTable } from "./usage-table";

/**
 * Messages, tokens and cost of a usage series as three charts, each a figure that says in words
 * what it shows; "Show as table" gives every figure as a table instead, and the button then
 * offers the charts back (its label says what it will show, rather than a pressed state).
 */
export function UsagePanel({
  series,
  title,
  scope,
}: {
  series: UsageSeries;
  title: string;
  /** Whose usage it is, for the sentence that says what the figures count. */
  scope: string;
}) {
  const [asTable, setAsTable] = useState(false);
  const hourly = series.granularity === "hour";
  const charts = useMemo(() => chartsOf(series), [series]);
  return (
    <Panel
      title={title}
      actions={
        <Button onClick={() => setAsTable((shown) => !shown)}>
          {asTable ? "Show as charts" : "Show as table"}
        </Button>
      }
    >
      <p className="muted" data-testid="usage-totals">
        {totalsSentence(series.totals)}
      </p>
      <p className="hint">
        {scope}, by UTC {hourly ? "hour" : "day"}: chat replies delivered and runs that succeeded,
        as stored. Resetting counters does not change it.
      </p>
      {asTable ? (
        <UsageTable series={series} />
      ) : (
        <div className={styles.charts}>
          {charts.map((chart) => (
            <figure key={chart.title} className={styles.figure} data-testid="usage-chart">
              <figcaption>{chart.title}</figcaption>
              {chart.unknown === "all" ? (
                // Nothing to draw: a line at 0 would say the replies cost nothing.
                <p className="muted">
                  Unknown: none of these replies had a price. Set their models' prices on the Prices
                  page; replies stored from then on have a cost.
                </p>
              ) : (
                <>
                  <p className="sr-only">{chart.summary}</p>
                  <LazyUsageChart
                    starts={chart.starts}
                    lines={chart.lines}
                    hourly={hourly}
                    unit={chart.unit}
                  />
                  {chart.unknown > 0 && (
                    <p className="hint" data-testid="unknown-cost">
                      Unknown on {plural(chart.unknown, hourly ? "hour" : "day")} (replies without a
                      price): the line has a gap there.
                    </p>
                  )}
                </>
              )}
            </figure>
          ))}
        </div>
      )}
    </Panel>
  );
}

function totalsSentence(totals: UsageSeries["totals"]): string {
  const cost = totals.cost === null ? "unknown (no prices)" : formatCost(totals.cost);
  const unpriced =
    totals.unpriced > 0 ? ` (${plural(totals.unpriced, "reply", "replies")} without a price)` : "";
  return (
    `${plural(totals.messages, "message")} delivered, ${plural(totals.runs, "run")} succeeded, ` +
    `${formatNumber(totals.input_tokens)} tokens in and ${formatNumber(totals.output_tokens)} out, ` +
    `cost ${cost}${unpriced}. Refused: ${formatNumber(totals.refused_quota)} by a limit, ` +
    `${formatNumber(totals.refused_rate)} by the rate limit.`
  );
}

function chartsOf(series: UsageSeries) {
  const starts = series.points.map((point) => point.start);
  const pick = (key: "messages" | "runs" | "input_tokens" | "output_tokens") =>
    series.points.map((point) => point[key]);
  const sum = (values: (number | null)[]) => values.reduce<number>((a, b) => a + (b ?? 0), 0);
  const buckets = series.granularity === "hour" ? "hours" : "days";
  const describe = (title: string, lines: ChartLine[], unit: ChartUnit = "count") => {
    // Buckets whose figure is unknown (a cost of replies without a price): "all" when every
    // reply of the range was unpriced (the totals say the cost is unknown).
    const unknown =
      unit === "cost" && series.totals.cost === null && series.totals.unpriced > 0
        ? ("all" as const)
        : Math.max(0, ...lines.map((line) => line.values.filter((v) => v === null).length));
    const figure = (line: ChartLine) =>
      unit === "cost" ? formatCost(sum(line.values)) : formatNumber(sum(line.values));
    return {
      title,
      starts,
      lines,
      unit,
      unknown,
      summary: `${title}, ${series.points.length} ${buckets}: ${lines
        .map((line) => `${line.label} ${figure(line)} in all`)
        .join(", ")}${
        typeof unknown === "number" && unknown > 0
          ? `, unknown on ${plural(unknown, buckets.slice(0, -1))}`
          : ""
      }. The table has every figure.`,
    };
  };
  return [
    describe("Messages and runs", [
      { label: "Messages", color: "#2563eb", values: pick("messages") },
      { label: "Runs", color: "#9333ea", values: pick("runs") },
    ]),
    describe("Tokens", [
      { label: "Input", color: "#0d9488", values: pick("input_tokens") },
      { label: "Output", color: "#d97706", values: pick("output_tokens") },
    ]),
    describe(
      "Cost",
      [{ label: "Cost", color: "#dc2626", values: series.points.map((point) => point.cost) }],
      "cost",
    ),
  ];
}
