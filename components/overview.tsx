"use client";

import Link from "next/link";
import styles from "./overview.module.css";
import { useUnreachable } from "./service-reachable";
import { refreshEvery, trpc } from "./trpc";
import { formatNumber, plural } from "./ui/format";
import { PageHeader } from "./ui/page-header";
import { Panel } from "./ui/panel";
import { problemOf } from "./ui/problem";
import { QueryState } from "./ui/query-state";
import { RelativeTime } from "./ui/relative-time";
import { StatusBadge } from "./ui/status-badge";
import { Table, Td, Th } from "./ui/table";
import { UsageOverview } from "./usage/usage-sections";

export function Overview() {
  const overview = trpc.dashboard.overview.useQuery(undefined, {
    refetchInterval: refreshEvery(10_000),
  });
  // The health shown is the last answer's: while the service does not answer, it is not healthy.
  const unreachable =
    useUnreachable() || (overview.error !== null && problemOf(overview.error).unreachable);
  return (
    <>
      <PageHeader title="Overview" />
      <QueryState query={overview} what="the overview">
        {(data) => (
          <>
            <div className="grid">
              <Panel title="Service">
                <StatusBadge
                  status={unreachable ? "unreachable" : data.health.status}
                  testId="service-status"
                />
                {unreachable ? (
                  <p className="muted">
                    No answer since <RelativeTime value={lastAnswer(overview.dataUpdatedAt)} />, so
                    the figures below are from then.
                  </p>
                ) : (
                  <p className="muted">
                    Database {data.health.database}
                    {data.health.database_kind ? ` (${data.health.database_kind})` : ""}, model
                    provider <strong>{data.health.provider}</strong>, version {data.health.version}
                  </p>
                )}
              </Panel>
              <Panel title="Agents">
                <div className={styles.stat} data-testid="agent-count">
                  {formatNumber(data.agents.total)}
                </div>
                <p className="muted">
                  <Link href="/dashboard/agents?autonomous=on">
                    {formatNumber(data.agents.autonomous)} autonomous
                  </Link>
                </p>
              </Panel>
              <Panel title="Messages">
                <div className={styles.stat} data-testid="messages-today">
                  {formatNumber(data.messages.today)}
                </div>
                <p className="muted">
                  replies delivered today (UTC), {formatNumber(data.messages.this_month)} this
                  month, by the agents there are now: the usage below counts the same way, and
                  resetting counters does not change either.
                </p>
              </Panel>
              <Panel title="Limits">
                <p data-testid="near-limit">
                  <Link href="/dashboard/agents?quota=near&sort=quota">
                    {plural(data.agents_near_limit, "agent")} at 80% or more of a limit
                  </Link>
                </p>
                <p data-testid="over-limit">
                  <Link href="/dashboard/agents?quota=over&sort=quota">
                    {plural(data.agents_over_limit, "agent")} at a limit
                  </Link>
                  <span className="muted">
                    {" "}
                    (their next message or run of that kind is refused)
                  </span>
                </p>
              </Panel>
            </div>
            <div className="grid">
              <Panel title="Recent autonomous runs">
                {data.recent_runs.length === 0 ? (
                  <p className="muted">
                    No runs yet. Turn on autonomous mode for an agent to see its runs here.
                  </p>
                ) : (
                  <Table layout="cards">
                    <thead>
                      <tr>
                        <Th>Agent</Th>
                        <Th>Due</Th>
                        <Th>Outcome</Th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.recent_runs.map((run) => (
                        <tr key={run.id}>
                          <Td label="Agent">
                            <Link href={`/dashboard/agents/${run.aid}`}>{run.aid}</Link>
                          </Td>
                          <Td label="Due">
                            <RelativeTime value={run.due_at} />
                          </Td>
                          <Td label="Outcome">
                            <StatusBadge status={run.outcome} />
                          </Td>
                        </tr>
                      ))}
                    </tbody>
                  </Table>
                )}
              </Panel>
              <Panel title="Deployments by status">
                <Table>
                  <tbody>
                    {Object.entries(data.deployments_by_status).map(([status, n]) => (
                      <tr key={status}>
                        <Td>
                          <Link href={`/dashboard/deployments?status=${status}`}>
                            <StatusBadge status={status} />
                          </Link>
                        </Td>
                        <Td numeric>{formatNumber(n)}</Td>
                      </tr>
                    ))}
                  </tbody>
                </Table>
              </Panel>
            </div>
          </>
        )}
      </QueryState>
      <UsageOverview />
    </>
  );
}

/** When the overview last came, as ISO. */
function lastAnswer(updatedAt: number): string {
  return new Date(updatedAt).toISOString();
}
