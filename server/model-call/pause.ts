import { type Context, GEN_AI_OPERATIONS, inSpan } from "@/server/observability";
import type { AnsweredBy, ChatTurn, ToolCallRequest } from "@/server/providers";
import type { Toolbox, ToolCall } from "@/server/tools";
import type { Usage } from "./schema";
import { toolSpanOptions } from "./spans";

/**
 * A call's turns paused at a turn that asked for tools people must approve first
 * (server/approvals): everything needed to go on from there, in any process, once they decide.
 * It is stored as JSON, so it holds only plain data.
 */
export type PausedTurns = {
  /** The conversation up to and including the model's message that asked for the calls. */
  messages: ChatTurn[];
  /** The reply's text, tokens and tool calls of the turns before. */
  text: string;
  usage: Usage;
  toolCalls: ToolCall[];
  /** The turn that asked. */
  step: number;
  answeredBy?: AnsweredBy;
  /** That turn's calls in the model's order: made (`record`), or waiting for a decision. */
  calls: ({ call: ToolCallRequest } & (
    | { record: ToolCall }
    | { waiting: { server: string; tool: string; arguments: unknown } }
  ))[];
};

/** What was decided for a waiting call; a denial's reason is told to the model. */
export type Decision = { approve: boolean; reason: string | null };

/** The turn's tool results as the model reads them in the next turn. */
export function toolTurns(records: ToolCall[]): ChatTurn[] {
  return records.map(
    (record): ChatTurn => ({
      role: "tool",
      tool_call_id: record.id,
      content: record.error === null ? (record.result ?? "") : `Error: ${record.error}`,
    }),
  );
}

/** The model's message that asked for `calls`, after its text. */
export function askingTurn(text: string, calls: ToolCallRequest[]): ChatTurn {
  return {
    role: "assistant",
    content: text || null,
    tool_calls: calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    })),
  };
}

/**
 * The paused turn's calls once decided, in the model's order: approved ones are made now, denied
 * ones answered with the denial. Calls a decision is missing for are denied (none should be).
 */
export async function decidedCalls(
  toolbox: Toolbox | undefined,
  paused: PausedTurns,
  decisions: Record<string, Decision>,
  signal: AbortSignal,
  trace: Context | undefined,
): Promise<{ records: ToolCall[]; made: ToolCall[] }> {
  const records = await Promise.all(
    paused.calls.map(async (entry) => {
      if ("record" in entry) return entry.record;
      const { call } = entry;
      const decision = decisions[call.id] ?? { approve: false, reason: null };
      const outcome = await decidedOutcome(toolbox, call, decision, signal, trace);
      return { id: call.id, step: paused.step, ...outcome };
    }),
  );
  const made = records.filter((_, i) => !(paused.calls[i] && "record" in paused.calls[i]));
  return { records, made };
}

async function decidedOutcome(
  toolbox: Toolbox | undefined,
  call: ToolCallRequest,
  decision: Decision,
  signal: AbortSignal,
  trace: Context | undefined,
): Promise<Omit<ToolCall, "id" | "step">> {
  const known = toolbox?.offered(call.name);
  const refused = (error: string) => ({
    ...describe(toolbox, call),
    result: null,
    error,
    duration_ms: 0,
  });
  if (!decision.approve)
    return refused(
      decision.reason
        ? `Not called: the call was denied. The approver's reason: ${decision.reason}`
        : "Not called: the call was denied.",
    );
  if (!toolbox || !known) return refused("Not called: the agent no longer has this tool.");
  return inSpan(
    `${GEN_AI_OPERATIONS.executeTool} ${known.tool}`,
    toolSpanOptions(known.tool, call.id),
    () => toolbox.call(call, signal),
    trace,
  );
}

/**
 * A call as the model named it, before it is made: its server and tool when the toolbox offers
 * it, and its arguments parsed (the raw text when they are not JSON). The `tool_call` event's
 * fields, and a refused call's.
 */
export function describe(toolbox: Toolbox | undefined, call: ToolCallRequest) {
  const known = toolbox?.offered(call.name);
  let args: unknown = call.arguments;
  try {
    args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch {}
  return { server: known?.server ?? null, name: known?.tool ?? call.name, arguments: args };
}
