"use client";

import type { ToolCall } from "@/server/tools/schema";
import styles from "./tool-calls.module.css";

/** A tool call as the chat shows it: finished (a ToolCall), or asked for and not answered yet. */
export type ToolCallView = Pick<ToolCall, "id" | "server" | "name"> &
  Partial<Pick<ToolCall, "arguments" | "result" | "error" | "duration_ms">>;

/** The tool calls before a reply, folded: one line to open, then each call's arguments and result. */
export function ToolCalls({ calls }: { calls: ToolCallView[] }) {
  if (calls.length === 0) return null;
  const running = calls.some((call) => call.duration_ms === undefined);
  const failed = calls.filter((call) => call.error).length;
  return (
    <details className={styles.calls} data-testid="tool-calls">
      <summary>
        {running ? "Calling " : "Called "}
        {calls.map((call) => call.name).join(", ")}
        {failed > 0 && <span className={styles.failed}> ({failed} failed)</span>}
      </summary>
      <ol>
        {calls.map((call) => (
          <li key={call.id}>
            <div className="row">
              <code>{call.server ? `${call.server} / ${call.name}` : call.name}</code>
              <span className="muted">
                {call.duration_ms === undefined ? "running…" : `${Math.round(call.duration_ms)} ms`}
              </span>
            </div>
            <pre>{JSON.stringify(call.arguments ?? {})}</pre>
            {call.error ? (
              <pre className={styles.failed}>{call.error}</pre>
            ) : (
              call.result !== undefined && <pre>{call.result}</pre>
            )}
          </li>
        ))}
      </ol>
    </details>
  );
}
