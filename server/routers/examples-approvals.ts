import { decideApprovalInputSchema, listApprovalsOutputSchema } from "@/server/approvals";
import { approvalDecisionSchema } from "@/server/chat";
import { example } from "@/server/http";
import { reply } from "./examples-chat";

/** Answers of the service for tool approvals, as a model on loopback and an MCP server gave them. */

const ID = "5b0c7e1a-3f2d-4c8e-9a61-2d7f0b4e8c13";

export const list = {
  json: example(listApprovalsOutputSchema, "One call waiting", {
    approvals: [
      {
        id: ID,
        server: "payments",
        tool: "refund",
        arguments: { order: 1042, amount: 35 },
        thread: { caller: "key:ak_7Qx2", chat_id: "ticket-42" },
        via: "chat",
        since: "2026-11-29T09:12:04.118Z",
        expires_at: "2026-11-29T10:12:04.118Z",
      },
    ],
  }),
};

export const decided = {
  completed: example(approvalDecisionSchema, "Approved: the chat went on and replied", {
    id: ID,
    decision: "approve",
    reason: null,
    status: "completed",
    reply: {
      ...reply.json.value,
      reply: "Done: order #1042 was refunded 35 EUR.",
      tool_calls: [
        {
          id: "call_1",
          step: 1,
          server: "payments",
          name: "refund",
          arguments: { order: 1042, amount: 35 },
          result: "refunded",
          error: null,
          duration_ms: 84.2,
        },
      ],
    },
    run_id: null,
    error: null,
  }),
  waiting: example(approvalDecisionSchema, "Another call of the turn still waits", {
    id: ID,
    decision: "deny",
    reason: "Refunds over 30 EUR go through a person.",
    status: "waiting",
    reply: null,
    run_id: null,
    error: null,
  }),
};

const decisionBody = decideApprovalInputSchema.omit({ aid: true, id: true });

export const decision = {
  approve: example(decisionBody, "Approve", { decision: "approve" }),
  deny: example(decisionBody, "Deny, telling the model why", {
    decision: "deny",
    reason: "Refunds over 30 EUR go through a person.",
  }),
};
