"use client";

import { type ComponentProps, lazy, Suspense } from "react";
import { Button } from "../ui/button";
import { ErrorBoundary } from "../ui/error-boundary";
import { Notice } from "../ui/notice";
import { Loading } from "../ui/query-state";
import type UsageChartComponent from "./usage-chart";

// uPlot is not in the pages' first load: its code is fetched as soon as a page that can show a
// chart has started, alongside the page's queries rather than after them, so that a service
// stopping later finds it already here.
const chartCode = import("./usage-chart");
// A failed fetch is shown by the chart that needed it, not reported as an unhandled rejection.
chartCode.catch(() => undefined);
const UsageChart = lazy(() => chartCode);

/**
 * A usage chart. When its code could not be fetched, the chart says so and the rest of the page
 * stays; the bundler keeps a failed fetch failed for the page's life, so only a reload helps.
 */
export function LazyUsageChart(props: ComponentProps<typeof UsageChartComponent>) {
  return (
    <ErrorBoundary fallback={<ChartNotLoaded />}>
      <Suspense fallback={<Loading what="the chart" />}>
        <UsageChart {...props} />
      </Suspense>
    </ErrorBoundary>
  );
}

function ChartNotLoaded() {
  return (
    <Notice
      variant="error"
      action={<Button onClick={() => window.location.reload()}>Reload</Button>}
    >
      The chart could not be loaded: the service could not be reached when this page opened. The
      totals and “Show as table” work without it; reload the page to see it.
    </Notice>
  );
}
