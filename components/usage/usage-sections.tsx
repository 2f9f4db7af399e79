"use client";

import Link from "next/link";
import type { UsageSeries } from "@/server/usage/schema";
import { refreshEvery, trpc } from "../trpc";
import { formatCost, formatNumber } from "../ui/format";
import { Panel } from "../ui/panel";
import { QueryState } from "../ui/query-state";
import { Table, Td, Th } from "../ui/table";
import { UsageBreakdown } from "./usage-breakdown";
import { UsagePanel } from "./usage-panel";
import { type UsageRange, UsageRangeControls, useUsageRange } from "./usage-range";

/** Every agent's usage over the chosen range, and the agents that used the most tokens. */
export function UsageOverview() {
  const { range, input, change } = useUsageRange();
  const usage = trpc.usage.all.useQuery(
    { ...input, top: 5 },
    { refetchInterval: refreshEvery(60_000) },
  );
  return (
    <>
      <UsageRangeControls range={range} onChange={change} series={usage.data} name="usage" />
      <QueryState query={usage} what="usage">
        {(data) => (
          <>
            <UsagePanel
              series={data}
              title={`Usage, ${rangeWords(data, range)}`}
              scope="Every agent there is now"
            />
            <Panel title={`Most tokens, ${rangeWords(data, range)}`}>
              {data.top_agents.length === 0 ? (
                <p className="muted">No agent has used any tokens in this range.</p>
              ) : (
                <Table layout="cards" data-testid="top-agents">
                  <thead>
                    <tr>
                      <Th>Agent</Th>
                      <Th numeric>Messages</Th>
                      <Th numeric>Tokens in / out</Th>
                      <Th numeric>Cost</Th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.top_agents.map((agent) => (
                      <tr key={agent.aid}>
                        <Td label="Agent">
                          <Link href={`/dashboard/agents/${agent.aid}`}>{agent.name}</Link>
                        </Td>
                        <Td label="Messages" numeric>
                          {formatNumber(agent.messages)}
                        </Td>
                        <Td label="Tokens in / out" numeric>
                          {formatNumber(agent.input_tokens)} / {formatNumber(agent.output_tokens)}
                        </Td>
                        <Td label="Cost" numeric>
                          {agent.cost === null ? "no price" : formatCost(agent.cost)}
                        </Td>
                      </tr>
                    ))}
                  </tbody>
                </Table>
              )}
            </Panel>
          </>
        )}
      </QueryState>
      <UsageBreakdown range={range} />
    </>
  );
}

/** One agent's usage over the chosen range (the last 30 days by day unless chosen). */
export function AgentUsage({ aid }: { aid: string }) {
  const { range, input, change } = useUsageRange();
  const usage = trpc.usage.agent.useQuery(
    { aid, ...input },
    { refetchInterval: refreshEvery(60_000) },
  );
  return (
    <>
      <UsageRangeControls
        range={range}
        onChange={change}
        series={usage.data}
        name={`usage-${aid}`}
      />
      <QueryState query={usage} what="the agent's usage">
        {(data) => (
          <UsagePanel
            series={data}
            title={`Usage, ${rangeWords(data, range)}`}
            scope="This agent"
          />
        )}
      </QueryState>
      <UsageBreakdown aid={aid} range={range} />
    </>
  );
}

/**
 * The range a series covers, in words: "last 30 days" (the service's default), or its UTC days
 * ("2026-10-27 to 2026-11-25 (UTC), by hour") once chosen.
 */
function rangeWords(series: Pick<UsageSeries, "from" | "to">, range: UsageRange): string {
  if (!range.from && !range.to)
    return range.granularity === "day" ? "last 30 days" : "last 24 hours, by hour";
  const day = (iso: string) => iso.slice(0, 10);
  const last = day(new Date(Date.parse(series.to) - 1).toISOString());
  const days = day(series.from) === last ? day(series.from) : `${day(series.from)} to ${last}`;
  return `${days} (UTC)${range.granularity === "hour" ? ", by hour" : ""}`;
}
