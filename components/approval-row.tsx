"use client";

import Link from "next/link";
import { useId, useState } from "react";
import type { Approval, ApprovalDecision } from "@/server/approvals/schema";
import styles from "./approvals-panel.module.css";
import { threadHref } from "./requests/requests-table";
import { Button } from "./ui/button";
import { ConfirmDialog } from "./ui/confirm-dialog";
import { Field } from "./ui/field";
import { RelativeTime } from "./ui/relative-time";
import { Textarea } from "./ui/textarea";

export const MAX_REASON = 1000;

/** An approval as the list gives it (its `arguments`, unknown, may be missing in the type). */
export type ListedApproval = Omit<Approval, "arguments"> & { arguments?: unknown };

/** How the turn came in, in the page's words. */
const VIA: Record<string, string> = {
  chat: "a chat",
  completions: "the OpenAI chat completions API",
  responses: "the OpenAI responses API",
  mcp: "the agent's MCP server",
  a2a: "A2A",
  run: "an autonomous run",
};

/** The arguments as the model gave them: JSON laid out, or its raw text when it was not JSON. */
const pretty = (value: unknown) =>
  typeof value === "string" ? value : (JSON.stringify(value ?? {}, null, 2) ?? String(value));

/**
 * One tool call waiting for a decision: what it would call with what, in which thread, until
 * when; "Approve" decides at once, "Deny…" asks first, with a reason the model is told. With
 * no `onDecide` (a viewer's), the call is shown without the buttons.
 */
export function ApprovalRow({
  aid,
  approval,
  busy,
  onDecide,
}: {
  aid: string;
  approval: ListedApproval;
  /** A decision of this call is being sent. */
  busy: boolean;
  onDecide?: (decision: ApprovalDecision, reason?: string) => Promise<void>;
}) {
  const [reason, setReason] = useState("");
  const title = useId();
  const { thread } = approval;
  return (
    <li className={styles.approval} data-testid="approval" aria-labelledby={title}>
      <h3 id={title}>
        <code>{approval.tool}</code> of <code>{approval.server}</code>
      </h3>
      <section
        className={styles.arguments}
        aria-label={`Arguments of ${approval.tool}`}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: long arguments scroll in their box, which must take focus so keyboards can scroll it (axe scrollable-region-focusable).
        tabIndex={0}
      >
        <pre>{pretty(approval.arguments)}</pre>
      </section>
      <p className="muted small-text" data-testid="approval-thread">
        Asked through {VIA[approval.via] ?? approval.via} <RelativeTime value={approval.since} />,
        in the thread{" "}
        <Link href={threadHref({ aid, ...thread })} scroll={false}>
          {thread.chat_id}
        </Link>{" "}
        of <code>{thread.caller}</code>; it stops waiting{" "}
        <RelativeTime value={approval.expires_at} />.
      </p>
      {onDecide && (
        <div className="row">
          <Button variant="primary" disabled={busy} onClick={() => onDecide("approve")}>
            {busy ? "Deciding…" : "Approve"}
          </Button>
          <ConfirmDialog
            trigger="Deny…"
            title={`Deny the call of ${approval.tool}?`}
            confirmLabel="Deny the call"
            disabled={busy}
            onOpen={() => setReason("")}
            confirmDisabled={reason.length > MAX_REASON}
            onConfirm={() => onDecide("deny", reason.trim() || undefined)}
          >
            <p>
              {approval.server} / {approval.tool} is not called: the model is told so, and why if
              you say, and goes on.
            </p>
            <Field
              name={`deny-reason-${approval.id}`}
              label="Reason (optional)"
              hint={`Told to the model; up to ${MAX_REASON.toLocaleString("en")} characters.`}
            >
              {(control) => (
                <Textarea
                  {...control}
                  maxLength={MAX_REASON}
                  value={reason}
                  onChange={(event) => setReason(event.currentTarget.value)}
                />
              )}
            </Field>
          </ConfirmDialog>
        </div>
      )}
    </li>
  );
}
