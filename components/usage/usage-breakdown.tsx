"use client";

import { useState } from "react";
import { BREAKDOWN_BY } from "@/server/request-log/schema";
import { refreshEvery, trpc } from "../trpc";
import { Field } from "../ui/field";
import { formatCost, formatNumber } from "../ui/format";
import { Panel } from "../ui/panel";
import { QueryState } from "../ui/query-state";
import { Select } from "../ui/select";
import { Table, Td, Th } from "../ui/table";
import { oneOf } from "../ui/url-state";
import type { UsageRange } from "./usage-range";

const DAY_MS = 86_400_000;

/**
 * Requests, tokens and cost by model or by agent key over the usage range (from the request
 * log, so over its REQUEST_LOG_DAYS days at most), most tokens first.
 */
export function UsageBreakdown({ aid, range }: { aid?: string; range: UsageRange }) {
  const [by, setBy] = useState<(typeof BREAKDOWN_BY)[number]>("model");
  // The usage range's days; without one, the last 30 days, as the usage panel shows.
  const from =
    range.from !== undefined
      ? `${range.from}T00:00:00Z`
      : new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - 29 * DAY_MS).toISOString();
  const breakdown = trpc.requestLog.breakdown.useQuery(
    {
      by,
      ...(aid ? { aid } : {}),
      from,
      ...(range.to !== undefined ? { to: `${range.to}T23:59:59.999Z` } : {}),
    },
    { refetchInterval: refreshEvery(60_000) },
  );
  return (
    <Panel
      title="Breakdown"
      actions={
        <Field name={`breakdown-by${aid ? `-${aid}` : ""}`} label="By">
          {(control) => (
            <Select
              {...control}
              value={by}
              onChange={(event) => setBy(oneOf(event.currentTarget.value, BREAKDOWN_BY) ?? "model")}
            >
              <option value="model">Model</option>
              <option value="key">Key</option>
            </Select>
          )}
        </Field>
      }
    >
      <p className="hint">
        Chat requests since {from.slice(0, 10)} (UTC), from the request log: it keeps
        REQUEST_LOG_DAYS days.
      </p>
      <QueryState
        query={breakdown}
        what="the breakdown"
        isEmpty={(data) => data.groups.length === 0}
        empty="No chat requests in this range."
      >
        {(data) => (
          <Table layout="cards" data-testid="usage-breakdown">
            <thead>
              <tr>
                <Th>{data.by === "model" ? "Model" : "Key"}</Th>
                <Th numeric>Requests</Th>
                <Th numeric>Delivered</Th>
                <Th numeric>Tokens in / out</Th>
                <Th numeric>Cost</Th>
              </tr>
            </thead>
            <tbody>
              {data.groups.map((group) => (
                <tr key={group.group ?? "none"}>
                  <Td label={data.by === "model" ? "Model" : "Key"}>{group.label}</Td>
                  <Td label="Requests" numeric>
                    {formatNumber(group.requests)}
                  </Td>
                  <Td label="Delivered" numeric>
                    {formatNumber(group.delivered)}
                  </Td>
                  <Td label="Tokens in / out" numeric>
                    {formatNumber(group.input_tokens)} / {formatNumber(group.output_tokens)}
                  </Td>
                  <Td label="Cost" numeric>
                    {group.cost === null ? "no price" : formatCost(group.cost)}
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </QueryState>
    </Panel>
  );
}
