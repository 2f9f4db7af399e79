"use client";

import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import {
  bucketLabel,
  type ChartUnit,
  COUNT_STEPS,
  DAY_STEPS,
  figureLabel,
  timeTicks,
  valueTicks,
} from "./chart-format";
import styles from "./usage-chart.module.css";

/** One line of a chart: its label, colour and a value per bucket. */
export type ChartLine = { label: string; color: string; values: (number | null)[] };

/** Buckets are UTC days and hours: the chart's time is UTC too, so each tick is a bucket's start. */
const utc = (seconds: number) => uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC");

/**
 * A line chart of a usage series, drawn by uPlot on a canvas that follows its container's width.
 * The canvas is hidden from assistive technology: its figure says what it shows in words, and the
 * table beside it (UsagePanel) has every figure. Its labels are written as the tables write them
 * (chart-format.ts), not in uPlot's own formats.
 */
export default function UsageChart({
  starts,
  lines,
  hourly,
  unit,
}: {
  /** Each bucket's start, ISO. */
  starts: string[];
  lines: ChartLine[];
  hourly: boolean;
  unit: ChartUnit;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const xs = starts.map((start) => Date.parse(start) / 1000);
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 200),
        height: 180,
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true } },
        tzDate: utc,
        series: [
          {
            label: hourly ? "Hour" : "Day",
            value: (_, seconds) => bucketLabel(seconds ?? null, hourly),
          },
          ...lines.map((line) => ({
            label: line.label,
            stroke: line.color,
            width: 2,
            // A null figure (a cost without a price) is a gap in the line, not a 0.
            spanGaps: false,
            value: (_: uPlot, value: number | null, __: number, at: number | null) =>
              at === null ? "—" : figureLabel(value, unit),
          })),
        ],
        axes: [
          {
            stroke: "currentColor",
            space: 90,
            ...(hourly ? {} : { incrs: DAY_STEPS }),
            values: (_, ticks) => timeTicks(ticks, hourly),
          },
          {
            stroke: "currentColor",
            ...(unit === "count" ? { incrs: COUNT_STEPS } : {}),
            values: (_, ticks, __, ___, step) => valueTicks(ticks, step),
            // As wide as its longest label (a small cost has several decimals).
            size: (_, labels) => 16 + Math.max(2, ...(labels ?? []).map((l) => l.length)) * 7,
          },
        ],
      },
      [xs, ...lines.map((line) => line.values)],
      element,
    );
    const resize = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(element.clientWidth, 200), height: 180 }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [starts, lines, hourly, unit]);
  return <div ref={box} className={styles.chart} aria-hidden="true" />;
}
