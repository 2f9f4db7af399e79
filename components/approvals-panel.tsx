"use client";

import { useEffect, useRef, useState } from "react";
import type { ApprovalDecision } from "@/server/approvals/schema";
import type { ApprovalDecisionReply } from "@/server/chat/schema";
import { ApprovalRow, type ListedApproval } from "./approval-row";
import styles from "./approvals-panel.module.css";
import { refreshEvery, trpc } from "./trpc";
import { Notice, type NoticeVariant } from "./ui/notice";
import { Panel } from "./ui/panel";
import { problemOf, serverWords } from "./ui/problem";
import { QueryState } from "./ui/query-state";
import { useRole } from "./use-role";

/** The start of a long reply shown under a decision: the whole of it is in the conversation. */
const REPLY_SHOWN = 600;

/** What a decision did, as the panel says it; `reply` is the chat's, when it went on to one. */
type Said = { variant: NoticeVariant; text: string; reply?: string };

function shorten(text: string): string {
  const chars = [...text];
  return chars.length > REPLY_SHOWN ? `${chars.slice(0, REPLY_SHOWN).join("").trimEnd()}…` : text;
}

/** What of a decision's answer the panel says. */
type Decided = Pick<ApprovalDecisionReply, "decision" | "status" | "run_id" | "error"> & {
  reply: { reply: string } | null;
};

function said(approval: ListedApproval, result: Decided): Said {
  const what = `${result.decision === "approve" ? "Approved" : "Denied"} ${approval.server} / ${approval.tool}.`;
  const run = result.run_id === null ? undefined : `Autonomous run ${result.run_id}`;
  switch (result.status) {
    case "waiting":
      return {
        variant: "info",
        text: `${what} Other calls of the same turn still wait for a decision: it goes on once they are decided.`,
      };
    case "requires_approval":
      return {
        variant: "info",
        text: `${what} ${run ?? "The chat"} went on, and the model asked for another call that needs approval: it is listed below.`,
      };
    case "failed":
      return {
        variant: "error",
        text: `${what} ${run ?? "The chat"} went on but failed: ${serverWords(result.error?.detail ?? "no reason was given.")}`,
      };
    case "completed":
      if (run || !result.reply)
        return { variant: "ok", text: `${what} ${run ?? "The turn"} went on and finished.` };
      return {
        variant: "ok",
        text: `${what} The chat went on and replied (stored in its conversation):`,
        reply: result.reply.reply === "" ? "(an empty reply)" : shorten(result.reply.reply),
      };
  }
}

/**
 * The agent's tool calls waiting for a person (their servers' "Tools that need approval"), the
 * oldest first, refreshed every 5 s. Approving makes the call; denying tells the model it was
 * not made, and why. When the last call of a turn is decided the turn goes on here, and what it
 * did is said above the list, which then has the focus (the decided call's box is gone). A
 * viewer sees the calls, not the buttons to decide them.
 */
export function ApprovalsPanel({ aid }: { aid: string }) {
  const utils = trpc.useUtils();
  const approvals = trpc.approvals.list.useQuery({ aid }, { refetchInterval: refreshEvery(5_000) });
  const decide = trpc.approvals.decide.useMutation();
  const { canOperate } = useRole();
  const [outcome, setOutcome] = useState<Said>();
  const [deciding, setDeciding] = useState<ReadonlySet<string>>(new Set());
  const message = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (outcome) message.current?.focus();
  }, [outcome]);

  async function onDecide(approval: ListedApproval, decision: ApprovalDecision, reason?: string) {
    setDeciding((ids) => new Set(ids).add(approval.id));
    try {
      const result = await decide.mutateAsync({
        aid,
        id: approval.id,
        decision,
        ...(reason ? { reason } : {}),
      });
      setOutcome(said(approval, result));
      if (result.status !== "waiting")
        void Promise.all([
          utils.agents.get.invalidate({ aid }),
          utils.threads.invalidate(),
          utils.runs.invalidate(),
        ]);
    } catch (error) {
      setOutcome({ variant: "error", text: `Not decided: ${problemOf(error).detail}` });
    } finally {
      setDeciding((ids) => {
        const next = new Set(ids);
        next.delete(approval.id);
        return next;
      });
      // Not awaited: a Deny dialog closes first, so that the focus can then move to the outcome.
      void utils.approvals.list.invalidate({ aid });
    }
  }

  return (
    <Panel title="Approvals">
      <p className="muted small-text">
        Calls of the tools an MCP server's “Tools that need approval” names wait here for a person.
        Approve to make the call, or deny it: the model is told it was not made. The chat or run
        goes on once every call of its turn is decided; undecided, a call stops waiting at its time,
        and its chat's message is given back.
      </p>
      {outcome && (
        <Notice
          ref={message}
          tabIndex={-1}
          variant={outcome.variant}
          className={styles.outcome}
          testId="approval-outcome"
        >
          <div>{outcome.text}</div>
          {outcome.reply !== undefined && (
            <blockquote className={styles.reply}>{outcome.reply}</blockquote>
          )}
        </Notice>
      )}
      <QueryState
        query={approvals}
        what="the approvals"
        isEmpty={(data) => data.approvals.length === 0}
        empty="No tool calls are waiting for approval."
      >
        {(data) => (
          <ul className={styles.list} aria-label="Tool calls waiting for approval">
            {data.approvals.map((approval) => (
              <ApprovalRow
                key={approval.id}
                aid={aid}
                approval={approval}
                busy={deciding.has(approval.id)}
                onDecide={
                  canOperate
                    ? (decision, reason) => onDecide(approval, decision, reason)
                    : undefined
                }
              />
            ))}
          </ul>
        )}
      </QueryState>
    </Panel>
  );
}
