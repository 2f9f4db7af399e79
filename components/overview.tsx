"use client";

import Link from "next/link";
import { problemOf, trpc } from "./trpc";

export function Overview() {
  const overview = trpc.dashboard.overview.useQuery(undefined, { refetchInterval: 10_000 });
  if (overview.isPending) return <p aria-busy="true">Loading…</p>;
  if (overview.error) return <p className="error">{problemOf(overview.error).detail}</p>;
  const data = overview.data;
  return (
    <>
      <h1>Overview</h1>
      <div className="grid">
        <section className="panel">
          <h2>Service</h2>
          <span className={`badge ${data.health.status}`}>{data.health.status}</span>
          <p className="muted">
            Database {data.health.database} ({data.health.database_kind ?? "?"}), model provider{" "}
            <strong>{data.health.provider}</strong>, version {data.health.version}
          </p>
        </section>
        <section className="panel">
          <h2>Agents</h2>
          <div className="stat" data-testid="agent-count">
            {data.agents.total}
          </div>
          <p className="muted">{data.agents.autonomous} autonomous</p>
        </section>
        <section className="panel">
          <h2>Messages</h2>
          <div className="stat">{data.messages.today.toLocaleString("en")}</div>
          <p className="muted">
            today, {data.messages.this_month.toLocaleString("en")} this month;{" "}
            {data.agents_near_limit} agents at 80%+ of a limit
          </p>
        </section>
      </div>
      <div className="grid">
        <section className="panel">
          <h2>Recent autonomous runs</h2>
          {data.recent_runs.length === 0 ? (
            <p className="muted">
              No runs yet. Enable autonomous mode on an agent to see them here.
            </p>
          ) : (
            <table>
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
                    <td>
                      <Link href={`/dashboard/agents/${run.aid}`}>{run.aid}</Link>
                    </td>
                    <td>{new Date(run.due_at).toLocaleString()}</td>
                    <td>
                      <span className={`badge ${run.outcome}`}>{run.outcome}</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section className="panel">
          <h2>Deployments by status</h2>
          <table>
            <tbody>
              {Object.entries(data.deployments_by_status).map(([status, n]) => (
                <tr key={status}>
                  <td>
                    <Link href={`/dashboard/deployments?status=${status}`}>{status}</Link>
                  </td>
                  <td>{n}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </div>
    </>
  );
}
