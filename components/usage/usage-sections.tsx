"use client";

import Link from "next/link";
import { refreshEvery, trpc } from "../trpc";
import { formatCost, formatNumber } from "../ui/format";
import { Panel } from "../ui/panel";
import { QueryState } from "../ui/query-state";
import { Table, Td, Th } from "../ui/table";
import { UsagePanel } from "./usage-panel";

/** The last 30 days of every agent, by day, and the agents that used the most tokens. */
export function UsageOverview() {
  const usage = trpc.usage.all.useQuery(
    { granularity: "day", top: 5 },
    { refetchInterval: refreshEvery(60_000) },
  );
  return (
    <QueryState query={usage} what="usage">
      {(data) => (
        <>
          <UsagePanel series={data} title="Usage, last 30 days" scope="Every agent there is now" />
          <Panel title="Most tokens, last 30 days">
            {data.top_agents.length === 0 ? (
              <p className="muted">No agent has used any tokens in these 30 days.</p>
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
  );
}

/** One agent's last 30 days, by day. */
export function AgentUsage({ aid }: { aid: string }) {
  const usage = trpc.usage.agent.useQuery(
    { aid, granularity: "day" },
    { refetchInterval: refreshEvery(60_000) },
  );
  return (
    <QueryState query={usage} what="the agent's usage">
      {(data) => <UsagePanel series={data} title="Usage, last 30 days" scope="This agent" />}
    </QueryState>
  );
}
