"use client";

import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import styles from "./usage-chart.module.css";

/** One line of a chart: its label, colour and a value per bucket. */
export type ChartLine = { label: string; color: string; values: (number | null)[] };

/**
 * A line chart of a usage series, drawn by uPlot on a canvas that follows its container's width.
 * The canvas is hidden from assistive technology: its figure says what it shows in words, and the
 * table beside it (UsagePanel) has every figure.
 */
export default function UsageChart({
  starts,
  lines,
  hourly,
}: {
  /** Each bucket's start, ISO. */
  starts: string[];
  lines: ChartLine[];
  hourly: boolean;
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
        series: [
          { label: hourly ? "Hour" : "Day" },
          ...lines.map((line) => ({ label: line.label, stroke: line.color, width: 2 })),
        ],
        axes: [{ stroke: "currentColor" }, { stroke: "currentColor", size: 60 }],
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
  }, [starts, lines, hourly]);
  return <div ref={box} className={styles.chart} aria-hidden="true" />;
}
