import type { PendingApproval } from "@/server/approvals";
import type { OutputItem, OutputMessage, ResponseObject, ResponseRequest } from "./schema";

// The response object of OpenAI's Responses API, as answered and as read back.

/** What the response object repeats of its request, as kept for reading it back. */
export function settingsOf(request: ResponseRequest): Record<string, unknown> {
  return {
    max_output_tokens: request.max_output_tokens ?? null,
    temperature: request.temperature ?? null,
    top_p: request.top_p ?? null,
    truncation: request.truncation ?? "disabled",
    tool_choice: request.tool_choice ?? "auto",
    parallel_tool_calls: request.parallel_tool_calls ?? true,
  };
}

export function messageOf(prepared: { messageId: string }, text: string): OutputMessage {
  return {
    type: "message",
    id: prepared.messageId,
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text, annotations: [] }],
  };
}

/** The tool calls a paused turn waits on, as OpenAI's items for them. */
export function approvalItems(approvals: PendingApproval[]): OutputItem[] {
  return approvals.map((approval) => ({
    type: "mcp_approval_request",
    id: approval.id,
    server_label: approval.server,
    name: approval.tool,
    arguments: JSON.stringify(approval.arguments ?? {}),
  }));
}

/** The response object, from what was asked (and kept) and, when there is one, the reply. */
export function responseObjectOf(
  {
    id,
    model,
    createdAt,
    instructions,
    previousResponseId,
    store,
    metadata,
    settings,
    background = false,
  }: {
    id: string;
    model: string;
    createdAt: number;
    instructions: string | null;
    previousResponseId: string | null;
    store: boolean;
    metadata: Record<string, string>;
    settings: Record<string, unknown>;
    background?: boolean;
  },
  status: ResponseObject["status"],
  output: OutputItem[],
  usage: { input_tokens: number; output_tokens: number } | null,
  error: ResponseObject["error"] = null,
): ResponseObject {
  return {
    id,
    object: "response",
    created_at: createdAt,
    status,
    model,
    output,
    usage: usage && {
      input_tokens: usage.input_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage.output_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.input_tokens + usage.output_tokens,
    },
    instructions,
    previous_response_id: previousResponseId,
    store,
    metadata,
    error,
    incomplete_details: null,
    max_output_tokens: (settings.max_output_tokens as number | null) ?? null,
    temperature: (settings.temperature as number | null) ?? null,
    top_p: (settings.top_p as number | null) ?? null,
    parallel_tool_calls: (settings.parallel_tool_calls as boolean | undefined) ?? true,
    tool_choice: (settings.tool_choice as string | undefined) ?? "auto",
    tools: [],
    text: { format: { type: "text" } },
    truncation: (settings.truncation as "auto" | "disabled" | undefined) ?? "disabled",
    background,
  };
}
