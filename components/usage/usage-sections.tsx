"use client";

import Link from "next/link";
import { refreshEvery, trpc } from "../trpc";
import { formatCost, formatNumber } from "../ui/format";
import { QueryState } from "../ui/query-state";
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
          <UsagePanel series={data} title="Usage, last 30 days" />
          <section className="panel" aria-labelledby="top-heading">
            <h2 id="top-heading">Most tokens, last 30 days</h2>
            {data.top_agents.length === 0 ? (
              <p className="muted">No agent has used any tokens in these 30 days.</p>
            ) : (
              <table className="cards" data-testid="top-agents">
                <thead>
                  <tr>
                    <th>Agent</th>
                    <th>Messages</th>
                    <th>Tokens in / out</th>
                    <th>Cost</th>
                  </tr>
                </thead>
                <tbody>
                  {data.top_agents.map((agent) => (
                    <tr key={agent.aid}>
                      <td data-label="Agent">
                        <Link href={`/dashboard/agents/${agent.aid}`}>{agent.name}</Link>
                      </td>
                      <td data-label="Messages">{formatNumber(agent.messages)}</td>
                      <td data-label="Tokens in / out">
                        {formatNumber(agent.input_tokens)} / {formatNumber(agent.output_tokens)}
                      </td>
                      <td data-label="Cost">
                        {agent.cost === null ? "no price" : formatCost(agent.cost)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
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
      {(data) => <UsagePanel series={data} title="Usage, last 30 days" />}
    </QueryState>
  );
}
