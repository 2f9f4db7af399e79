"use client";

import Link from "next/link";
import { refreshEvery, trpc } from "./trpc";
import { formatNumber, plural } from "./ui/format";
import { PageHeader } from "./ui/page-header";
import { QueryState } from "./ui/query-state";
import { RelativeTime } from "./ui/relative-time";
import { StatusBadge } from "./ui/status-badge";
import { UsageOverview } from "./usage/usage-sections";

export function Overview() {
  const overview = trpc.dashboard.overview.useQuery(undefined, {
    refetchInterval: refreshEvery(10_000),
  });
  return (
    <>
      <PageHeader title="Overview" />
      <QueryState query={overview} what="the overview">
        {(data) => (
          <>
            <div className="grid">
              <section className="panel" aria-labelledby="service-heading">
                <h2 id="service-heading">Service</h2>
                <StatusBadge status={data.health.status} />
                <p className="muted">
                  Database {data.health.database}
                  {data.health.database_kind ? ` (${data.health.database_kind})` : ""}, model
                  provider <strong>{data.health.provider}</strong>, version {data.health.version}
                </p>
              </section>
              <section className="panel" aria-labelledby="agents-heading">
                <h2 id="agents-heading">Agents</h2>
                <div className="stat" data-testid="agent-count">
                  {formatNumber(data.agents.total)}
                </div>
                <p className="muted">
                  <Link href="/dashboard/agents?autonomous=on">
                    {formatNumber(data.agents.autonomous)} autonomous
                  </Link>
                </p>
              </section>
              <section className="panel" aria-labelledby="messages-heading">
                <h2 id="messages-heading">Messages</h2>
                <div className="stat">{formatNumber(data.messages.today)}</div>
                <p className="muted">
                  today (UTC), {formatNumber(data.messages.this_month)} this month
                </p>
              </section>
              <section className="panel" aria-labelledby="limits-heading">
                <h2 id="limits-heading">Limits</h2>
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
              </section>
            </div>
            <div className="grid">
              <section className="panel" aria-labelledby="runs-heading">
                <h2 id="runs-heading">Recent autonomous runs</h2>
                {data.recent_runs.length === 0 ? (
                  <p className="muted">
                    No runs yet. Turn on autonomous mode for an agent to see its runs here.
                  </p>
                ) : (
                  <table className="cards">
                    <thead>
                      <tr>
                        <th>Agent</th>
                        <th>Due</th>
                        <th>Outcome</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.recent_runs.map((run) => (
                        <tr key={run.id}>
                          <td data-label="Agent">
                            <Link href={`/dashboard/agents/${run.aid}`}>{run.aid}</Link>
                          </td>
                          <td data-label="Due">
                            <RelativeTime value={run.due_at} />
                          </td>
                          <td data-label="Outcome">
                            <StatusBadge status={run.outcome} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </section>
              <section className="panel" aria-labelledby="deployments-heading">
                <h2 id="deployments-heading">Deployments by status</h2>
                <table>
                  <tbody>
                    {Object.entries(data.deployments_by_status).map(([status, n]) => (
                      <tr key={status}>
                        <td>
                          <Link href={`/dashboard/deployments?status=${status}`}>
                            <StatusBadge status={status} />
                          </Link>
                        </td>
                        <td className="number">{formatNumber(n)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </section>
            </div>
          </>
        )}
      </QueryState>
      <UsageOverview />
    </>
  );
}
