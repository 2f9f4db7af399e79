"use client";

import { GRANULARITIES, type Granularity, type UsageSeries } from "@/server/usage/schema";
import { usageCsv } from "@/server/usage/view";
import { Button } from "../ui/button";
import { Field } from "../ui/field";
import { Input } from "../ui/input";
import { Select } from "../ui/select";
import { oneOf, useUrlState } from "../ui/url-state";

/** The range a usage panel shows: UTC days from and to (inclusive), by day or by hour. */
export type UsageRange = { from?: string; to?: string; granularity: Granularity };

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The range, kept in the URL (`usage_from`, `usage_to`, `usage_by`), so that reload and a shared
 * link show the same usage; the procedure's input for it (the service's defaults when no day is
 * chosen: the last 30 days, or 24 hours by hour).
 */
export function useUsageRange() {
  const { params, update } = useUrlState();
  const day = (name: string) => {
    const value = params.get(name);
    return value && DAY.test(value) ? value : undefined;
  };
  const range: UsageRange = {
    from: day("usage_from"),
    to: day("usage_to"),
    granularity: oneOf(params.get("usage_by"), GRANULARITIES) ?? "day",
  };
  const input = {
    granularity: range.granularity,
    ...(range.from ? { from: `${range.from}T00:00:00Z` } : {}),
    ...(range.to ? { to: `${range.to}T23:59:59Z` } : {}),
  };
  // Only what changed: `update` merges it into the URL as it is now, so a second change made
  // before the first has been drawn does not put the first back as it was.
  const change = (next: Partial<UsageRange>) =>
    update(
      {
        ...("from" in next ? { usage_from: next.from } : {}),
        ...("to" in next ? { usage_to: next.to } : {}),
        ...(next.granularity === undefined
          ? {}
          : { usage_by: next.granularity === "day" ? undefined : "hour" }),
      },
      "replace",
    );
  return { range, input, change };
}

/** From, to, by day or hour, and the series as a CSV file (the API's own columns). */
export function UsageRangeControls({
  range,
  onChange,
  series,
  name,
}: {
  range: UsageRange;
  onChange: (next: Partial<UsageRange>) => void;
  series: UsageSeries | undefined;
  name: string;
}) {
  function download() {
    if (!series) return;
    const { text, filename } = usageCsv(series, name);
    const url = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = filename;
    link.click();
    URL.revokeObjectURL(url);
  }
  return (
    <div className="form-grid" data-testid="usage-range">
      <Field name={`${name}-from`} label="From (UTC day)">
        {(control) => (
          <Input
            {...control}
            type="date"
            value={range.from ?? ""}
            onChange={(event) => onChange({ from: event.currentTarget.value || undefined })}
          />
        )}
      </Field>
      <Field name={`${name}-to`} label="To (UTC day)">
        {(control) => (
          <Input
            {...control}
            type="date"
            value={range.to ?? ""}
            onChange={(event) => onChange({ to: event.currentTarget.value || undefined })}
          />
        )}
      </Field>
      <Field name={`${name}-by`} label="By">
        {(control) => (
          <Select
            {...control}
            value={range.granularity}
            onChange={(event) =>
              onChange({ granularity: oneOf(event.currentTarget.value, GRANULARITIES) ?? "day" })
            }
          >
            <option value="day">Day</option>
            <option value="hour">Hour</option>
          </Select>
        )}
      </Field>
      <div className="row">
        <Button onClick={download} disabled={!series}>
          Download CSV
        </Button>
      </div>
    </div>
  );
}
