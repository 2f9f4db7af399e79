import { z } from "zod";
import { lookupAidSchema } from "@/server/kit/agent-id";
import { LONE_SURROGATE_RULE, NUL_RULE, withoutLoneSurrogate, withoutNul } from "@/server/kit/text";

// Shared by the procedures, REST, OpenAPI and the dashboard: nothing here may import server-only
// code.

export const APPROVAL_DECISIONS = ["approve", "deny"] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/** A tool call waiting for a decision, as a chat's reply names it. */
export const pendingApprovalSchema = z
  .object({
    id: z.uuid().meta({ description: "Decide it with POST /agents/{aid}/approvals/{id}." }),
    server: z.string().meta({ description: "The MCP server of the tool." }),
    tool: z.string().meta({ description: "The tool's name as the server gives it." }),
    arguments: z.unknown().meta({
      description: "The arguments the model gave (a JSON object; the raw text when not JSON).",
    }),
  })
  .meta({ id: "PendingApproval" });

export type PendingApproval = z.infer<typeof pendingApprovalSchema>;

/** A pending approval as the list shows it: with its thread and since when it waits. */
export const approvalSchema = pendingApprovalSchema
  .extend({
    thread: z.object({
      caller: z.string().meta({ description: "Whose thread: `admin`, `key:<id>`, `addr:<hash>`…" }),
      chat_id: z.string(),
    }),
    via: z.string().meta({
      description: "How the turn came in: chat, completions, responses, mcp, a2a, or run.",
    }),
    since: z.iso.datetime().meta({ description: "When the model asked for the call." }),
    expires_at: z.iso.datetime().meta({
      description:
        "When, undecided, the call stops waiting (TOOL_APPROVAL_WAIT_S): the chat's message is given back, a run fails.",
    }),
  })
  .meta({ id: "ToolApproval" });

export type Approval = z.infer<typeof approvalSchema>;

export const listApprovalsInputSchema = z.strictObject({ aid: lookupAidSchema });

export const listApprovalsOutputSchema = z.object({
  approvals: z.array(approvalSchema).meta({
    description:
      "The oldest first, at most 100: all the agent's for the admin, a key's own for it.",
  }),
});

export const decideApprovalInputSchema = z.strictObject({
  aid: lookupAidSchema,
  id: z.uuid({ error: "must be an approval's id (a UUID)" }),
  decision: z.enum(APPROVAL_DECISIONS, { error: "must be approve or deny" }),
  reason: z
    .string()
    .trim()
    .min(1, "must not be empty; leave it out instead")
    .max(1000, "must be at most 1,000 characters")
    .refine(withoutNul, NUL_RULE)
    .refine(withoutLoneSurrogate, LONE_SURROGATE_RULE)
    .optional()
    .meta({ description: "Why; a denial's reason is told to the model." }),
});

export type DecideApprovalInput = z.infer<typeof decideApprovalInputSchema>;
