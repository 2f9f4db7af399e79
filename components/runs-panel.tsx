"use client";

import { useState } from "react";
import { describeCron } from "@/server/schedules/view";
import styles from "./runs-panel.module.css";
import { ToolCalls } from "./tool-calls";
import { refreshEvery, trpc } from "./trpc";
import { Button } from "./ui/button";
import { plural } from "./ui/format";
import { ErrorText } from "./ui/notice";
import { Panel } from "./ui/panel";
import { problemOf } from "./ui/problem";
import { QueryState } from "./ui/query-state";
import { MaybeTime, RelativeTime } from "./ui/relative-time";
import { StatusBadge } from "./ui/status-badge";
import { Table, Td, Th } from "./ui/table";
import { useRole } from "./use-role";

const PAGE = 20;

/**
 * An agent's autonomous runs: the schedule, outcome counts, the history (paged), "run now" (not
 * for a viewer).
 */
export function RunsPanel({ aid, canRun }: { aid: string; canRun: boolean }) {
  const utils = trpc.useUtils();
  const { canOperate } = useRole();
  const summary = trpc.runs.summary.useQuery({ aid }, { refetchInterval: refreshEvery(5_000) });
  // How many pages are shown: the newest, and the older ones asked for.
  const [pages, setPages] = useState(1);
  const [error, setError] = useState<string>();
  const runNow = trpc.runs.runNow.useMutation({
    onMutate: () => setError(undefined),
    onSuccess: () => Promise.all([utils.runs.invalidate(), utils.agents.get.invalidate({ aid })]),
    onError: (caught) => setError(problemOf(caught).detail),
  });
  const counts = summary.data?.counts;
  const total = counts ? counts.running + counts.succeeded + counts.failed + counts.skipped : 0;

  return (
    <Panel
      title="Autonomous runs"
      actions={
        canOperate && (
          <Button
            onClick={() => runNow.mutate({ aid })}
            disabled={runNow.isPending || !canRun}
            aria-describedby={canRun ? undefined : "run-now-hint"}
          >
            {runNow.isPending ? "Running…" : "Run now"}
          </Button>
        )
      }
    >
      {canOperate && !canRun && (
        <p className="hint" id="run-now-hint">
          To run it now, give it an instruction for each run in the configuration below.
        </p>
      )}
      {summary.data && (
        <p className="muted" data-testid="runs-summary">
          {summary.data.autonomous_enabled ? (
            <>
              {summary.data.autonomous_cron ? (
                <>
                  {describeCron(summary.data.autonomous_cron, summary.data.autonomous_timezone)} (
                  <code>{summary.data.autonomous_cron}</code>)
                </>
              ) : (
                <>Every {summary.data.autonomous_minutes} min</>
              )}
              ; next run <MaybeTime value={summary.data.next_run_at} none="not scheduled" />.
            </>
          ) : (
            "Autonomous mode is off."
          )}{" "}
          {counts?.succeeded} succeeded, {counts?.failed} failed, {counts?.skipped} skipped.
        </p>
      )}
      {error && (
        <ErrorText role="alert" data-testid="run-now-error">
          Run now failed: {error}
        </ErrorText>
      )}
      <RunsPage aid={aid} total={total} pages={pages} onOlder={() => setPages((n) => n + 1)} />
    </Panel>
  );
}

/**
 * One page of runs and, under it, the older pages shown. Each page starts where the one above
 * it ends now (its cursor comes from that page's current answer), so the newest page can keep
 * refreshing as runs come in without leaving a gap or a repeat between pages.
 */
function RunsPage({
  aid,
  total,
  pages,
  cursor,
  depth = 0,
  onOlder,
}: {
  aid: string;
  total: number;
  pages: number;
  cursor?: string;
  depth?: number;
  onOlder: () => void;
}) {
  const runs = trpc.runs.list.useQuery(
    { aid, limit: PAGE, cursor },
    { refetchInterval: refreshEvery(depth === 0 ? 5_000 : false) },
  );
  return (
    <QueryState
      query={runs}
      what="the runs"
      isEmpty={(data) => depth === 0 && data.runs.length === 0}
      empty="No runs yet."
    >
      {(data) => {
        const shown = depth * PAGE + data.runs.length;
        const older = data.next_cursor;
        return (
          <>
            <Table layout="cards" fixed>
              {/* Every page's table has the headers (for screen readers); the older pages' are
                  hidden, so the pages read as one list. */}
              <thead className={depth === 0 ? undefined : "sr-only"}>
                <tr>
                  <Th className={styles.time}>Due</Th>
                  <Th className={styles.status}>Outcome</Th>
                  <Th>Reply or reason</Th>
                </tr>
              </thead>
              <tbody>
                {data.runs.map((run) => (
                  <tr key={run.id} data-testid="run-row">
                    <Td label="Due">
                      <RelativeTime value={run.due_at} />
                      {run.trigger === "manual" && <div className="muted">manual</div>}
                    </Td>
                    <Td label="Outcome">
                      <StatusBadge status={run.outcome} />
                    </Td>
                    <Td label="Reply or reason" className="pre-wrap">
                      <ToolCalls calls={run.tool_calls} />
                      {run.reply ?? run.error ?? ""}
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
            {older && depth + 1 < pages ? (
              <RunsPage
                aid={aid}
                total={total}
                pages={pages}
                cursor={older}
                depth={depth + 1}
                onOlder={onOlder}
              />
            ) : (
              <div className="row">
                <span className="muted small-text" data-testid="runs-shown">
                  {shown} of {plural(Math.max(total, shown), "run")} shown
                </span>
                {older && <Button onClick={onOlder}>Show older runs</Button>}
              </div>
            )}
          </>
        );
      }}
    </QueryState>
  );
}
