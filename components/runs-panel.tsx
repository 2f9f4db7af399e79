"use client";

import { useState } from "react";
import { problemOf, trpc } from "./trpc";

/** An agent's autonomous runs: the schedule, outcome counts, the history, and "run now". */
export function RunsPanel({ aid }: { aid: string }) {
  const utils = trpc.useUtils();
  const summary = trpc.autonomous.summary.useQuery({ aid }, { refetchInterval: 5_000 });
  const runs = trpc.autonomous.runs.useQuery({ aid, limit: 20 }, { refetchInterval: 5_000 });
  const [error, setError] = useState<string>();
  const runNow = trpc.autonomous.runNow.useMutation({
    onSuccess: () =>
      Promise.all([utils.autonomous.invalidate(), utils.agents.get.invalidate({ aid })]),
    onError: (caught) => setError(problemOf(caught).detail),
  });

  return (
    <section className="panel" aria-labelledby="runs-heading">
      <div className="row">
        <h2 id="runs-heading" style={{ margin: 0 }}>
          Autonomous runs
        </h2>
        <span className="spacer" />
        <button type="button" onClick={() => runNow.mutate({ aid })} disabled={runNow.isPending}>
          {runNow.isPending ? "Running…" : "Run now"}
        </button>
      </div>
      {summary.data && (
        <p className="muted" data-testid="runs-summary">
          {summary.data.autonomous_enabled
            ? `Every ${summary.data.autonomous_minutes} min; next run ${
                summary.data.next_run_at ? new Date(summary.data.next_run_at).toLocaleString() : "—"
              }.`
            : "Autonomous mode is off."}{" "}
          {summary.data.counts.succeeded} succeeded, {summary.data.counts.failed} failed,{" "}
          {summary.data.counts.skipped} skipped.
        </p>
      )}
      {error && <p className="error">{error}</p>}
      {runs.isPending ? (
        <p aria-busy="true">Loading…</p>
      ) : runs.error ? (
        <p className="error">{problemOf(runs.error).detail}</p>
      ) : runs.data.runs.length === 0 ? (
        <p className="muted">No runs yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Due</th>
              <th>Outcome</th>
              <th>Reply or reason</th>
            </tr>
          </thead>
          <tbody>
            {runs.data.runs.map((run) => (
              <tr key={run.id} data-testid="run-row">
                <td>
                  {new Date(run.due_at).toLocaleString()}
                  {run.trigger === "manual" && <div className="muted">manual</div>}
                </td>
                <td>
                  <span className={`badge ${run.outcome}`}>{run.outcome}</span>
                </td>
                <td style={{ whiteSpace: "pre-wrap" }}>{run.reply ?? run.error ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
