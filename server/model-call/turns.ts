import { cutText } from "@/server/kit/text";
import { type Context, GEN_AI_OPERATIONS, inSpan, metrics } from "@/server/observability";
import type {
  AnsweredBy,
  ChatTurn,
  FinishReason,
  ModelProvider,
  ModelRequest,
  ProviderUsage,
  ToolCallRequest,
} from "@/server/providers";
import type { Toolbox, ToolCall } from "@/server/tools";
import {
  askingTurn,
  type Decision,
  decidedCalls,
  describe,
  type PausedTurns,
  toolTurns,
} from "./pause";
import { estimateTokens, type Usage } from "./schema";
import { modelTurnSpan, toolSpanOptions } from "./spans";

/**
 * The model's turns of one call: it answers, or asks for tools whose results go back to it, until
 * it answers in text or has used `maxSteps` tool turns (then it is asked once more with
 * tool_choice "none"). Yields text as it streams and an event per tool call and result; returns
 * the whole reply with the tokens of all turns.
 */

/** Events between a streamed reply's text: a tool call as the model asks for it, its result. */
export type ToolEvent =
  | ({ type: "tool_call" } & Pick<ToolCall, "id" | "step" | "server" | "name" | "arguments">)
  | ({ type: "tool_result" } & ToolCall);

export type TurnsResult = {
  text: string;
  usage: Usage;
  toolCalls: ToolCall[];
  /** `length` when the reply was cut, by the model's token limit or at the service's cap. */
  finishReason: FinishReason;
  /** The endpoint and model of the last turn, when the provider chose among an agent's endpoints. */
  answeredBy?: AnsweredBy;
  /** Set when a turn asked for tools that wait for an approval: where to go on from. */
  paused?: PausedTurns;
};

const NO_USAGE: Usage = { input_tokens: 0, output_tokens: 0, estimated: false };

/** Tool calls one turn may make; the model asking for more gets an error for the rest. */
const MAX_CALLS_PER_TURN = 16;

export async function* runTurns(options: {
  provider: ModelProvider;
  request: ModelRequest;
  toolbox: Toolbox | undefined;
  maxSteps: number;
  cap: number;
  stream: boolean;
  /** The chat's trace context: each turn and tool call is a span in it, when tracing is on. */
  trace?: Context;
  /** Turns paused for approvals, and what was decided: they go on from there. */
  resume?: { paused: PausedTurns; decisions: Record<string, Decision> };
}): AsyncGenerator<string | ToolEvent, TurnsResult, undefined> {
  const { provider, toolbox, maxSteps, cap, stream, resume } = options;
  const started = performance.now();
  let messages = resume?.paused.messages ?? options.request.messages;
  let text = resume?.paused.text ?? "";
  const usage: Usage = { ...(resume?.paused.usage ?? NO_USAGE) };
  const toolCalls: ToolCall[] = [...(resume?.paused.toolCalls ?? [])];
  let finishReason: FinishReason = "stop";
  let answeredBy: AnsweredBy | undefined = resume?.paused.answeredBy;
  if (resume) {
    const { paused, decisions } = resume;
    const signal = options.request.signal;
    const { records, made } = await decidedCalls(toolbox, paused, decisions, signal, options.trace);
    for (const record of made) yield { type: "tool_result", ...record };
    toolCalls.push(...records);
    messages = [...messages, ...toolTurns(records)];
  }
  for (let step = (resume?.paused.step ?? 0) + 1; ; step++) {
    const mayCall = toolbox !== undefined && step <= maxSteps;
    const request: ModelRequest = toolbox
      ? {
          ...options.request,
          messages,
          tools: toolbox.definitions,
          ...(mayCall ? {} : { toolChoice: "none" as const }),
        }
      : options.request;
    const separator = text ? "\n\n" : "";
    let turnText = "";
    let asked: ToolCallRequest[] = [];
    let reported: ProviderUsage | undefined;
    let finished: FinishReason | undefined;
    // A cut at the cap that would split a surrogate pair is made before it: the reply is then
    // a character short of the cap, and as full.
    let pairKeptOut = false;
    const span = modelTurnSpan(options.trace, request, provider.name);
    let spanEnded = false;
    try {
      if (stream) {
        for await (const chunk of provider.stream(span.request)) {
          reported = chunk.usage ?? reported;
          finished = chunk.finishReason ?? finished;
          answeredBy = chunk.answeredBy ?? answeredBy;
          if (chunk.toolCalls) asked = chunk.toolCalls;
          const room = Math.max(0, cap - text.length - separator.length - turnText.length);
          const piece = cutText(chunk.text, room);
          if (piece) {
            // The call's first text: `text` holds earlier turns' only, so this turn's counts too.
            if (!text && !turnText)
              metrics.firstToken.observe((performance.now() - started) / 1000);
            if (!turnText && separator) yield separator;
            turnText += piece;
            yield piece;
          }
          pairKeptOut = piece.length < Math.min(chunk.text.length, room);
          if (pairKeptOut || text.length + separator.length + turnText.length >= cap) break;
        }
      } else {
        const answer = await provider.generate(span.request);
        reported = answer.usage;
        finished = answer.finishReason;
        answeredBy = answer.answeredBy ?? answeredBy;
        asked = answer.toolCalls ?? [];
        const room = Math.max(0, cap - text.length - separator.length);
        turnText = cutText(answer.text, room);
        pairKeptOut = turnText.length < Math.min(answer.text.length, room);
      }
      const thisTurn = turnUsage(request, turnText, reported, toolbox?.definitionChars ?? 0);
      spanEnded = true;
      span.end({ usage: thisTurn, finishReason: finished ?? "stop", model: answeredBy?.model });
      addUsage(usage, thisTurn);
    } catch (error) {
      spanEnded = true;
      span.end({ error });
      throw error;
    } finally {
      // The consumer stopped mid-stream (the client left, the reply hit its cap).
      if (!spanEnded) span.end({ error: new DOMException("The turn was stopped.", "AbortError") });
    }
    if (turnText) text += separator + turnText;
    finishReason = finished ?? "stop";
    if (text.length >= cap || pairKeptOut) {
      finishReason = "length";
      break;
    }
    if (asked.length === 0) break;

    if (!mayCall) {
      // Asked for tools past max_tool_steps (the model ignored tool_choice "none"): not called.
      for (const [i, call] of asked.entries())
        toolCalls.push(
          notCalled(
            call,
            step,
            i,
            `Not called: this agent's max_tool_steps (${maxSteps}) was reached.`,
          ),
        );
      break;
    }
    const calls = asked.map((call, i) => ({ ...call, id: uniqueId(call.id, toolCalls, step, i) }));
    // Calls that wait for an approval are not made now; the others are, and the turns pause.
    const gated = calls.map(
      (call, i) => i < MAX_CALLS_PER_TURN && toolbox.offered(call.name)?.approval === true,
    );
    // The calls of a turn run at once; their events come in the order the model asked.
    const running = calls.map((call, i) =>
      i < MAX_CALLS_PER_TURN && !gated[i]
        ? inSpan(
            `${GEN_AI_OPERATIONS.executeTool} ${toolbox.offered(call.name)?.tool ?? call.name}`,
            toolSpanOptions(toolbox.offered(call.name)?.tool ?? call.name, call.id),
            () => toolbox.call(call, request.signal),
            options.trace,
          ).then(
            (outcome) => ({ ok: true as const, outcome }),
            (error: unknown) => ({ ok: false as const, error }),
          )
        : undefined,
    );
    for (const call of calls) {
      yield { type: "tool_call", id: call.id, step, ...describe(toolbox, call) };
    }
    const results: (ToolCall | undefined)[] = [];
    for (const [i, call] of calls.entries()) {
      if (gated[i]) {
        results.push(undefined);
        continue;
      }
      const settled = await running[i];
      let record: ToolCall;
      if (!settled)
        record = notCalled(
          call,
          step,
          i,
          `Not called: at most ${MAX_CALLS_PER_TURN} tool calls a turn.`,
        );
      else if (!settled.ok) throw settled.error;
      else record = { id: call.id, step, ...settled.outcome };
      results.push(record);
      yield { type: "tool_result", ...record };
    }
    const asking = askingTurn(turnText, calls);
    if (gated.includes(true)) {
      const paused: PausedTurns = {
        messages: [...messages, asking],
        text,
        usage: { ...usage },
        toolCalls: [...toolCalls],
        step,
        ...(answeredBy ? { answeredBy } : {}),
        calls: calls.map((call, i) => {
          const record = results[i];
          if (record) return { call, record };
          const { server, name, arguments: args } = describe(toolbox, call);
          return { call, waiting: { server: server ?? "", tool: name, arguments: args } };
        }),
      };
      const made = results.filter((record): record is ToolCall => record !== undefined);
      return {
        text,
        usage,
        toolCalls: [...toolCalls, ...made],
        finishReason,
        ...(answeredBy ? { answeredBy } : {}),
        paused,
      };
    }
    const records = results as ToolCall[];
    toolCalls.push(...records);
    messages = [...messages, asking, ...toolTurns(records)];
  }
  return { text, usage, toolCalls, finishReason, ...(answeredBy ? { answeredBy } : {}) };
}

function notCalled(call: ToolCallRequest, step: number, i: number, error: string): ToolCall {
  let args: unknown = call.arguments;
  try {
    args = JSON.parse(call.arguments);
  } catch {}
  return {
    id: call.id || `call_${step}_${i + 1}`,
    step,
    server: null,
    name: call.name,
    arguments: args,
    result: null,
    error,
    duration_ms: 0,
  };
}

/** The model's id for a call, unless an earlier call of this reply has it (then one made up). */
function uniqueId(id: string, earlier: ToolCall[], step: number, i: number): string {
  return id && !earlier.some((call) => call.id === id) ? id : `call_${step}_${i + 1}`;
}

function addUsage(total: Usage, turn: Usage): void {
  total.input_tokens += turn.input_tokens;
  total.output_tokens += turn.output_tokens;
  total.estimated ||= turn.estimated;
}

/** A turn's tokens: the provider's count when it gave one, else an estimate, marked so. */
function turnUsage(
  request: ModelRequest,
  reply: string,
  reported: ProviderUsage | undefined,
  toolChars: number,
): Usage {
  if (reported) {
    return {
      input_tokens: reported.inputTokens,
      output_tokens: reported.outputTokens,
      estimated: false,
    };
  }
  let promptChars = request.system.length + toolChars;
  for (const message of request.messages) promptChars += turnChars(message);
  return {
    input_tokens: estimateTokens(promptChars),
    output_tokens: estimateTokens(reply.length),
    estimated: true,
  };
}

function turnChars(turn: ChatTurn): number {
  let chars = turn.content?.length ?? 0;
  if ("tool_calls" in turn)
    for (const call of turn.tool_calls)
      chars += call.function.name.length + call.function.arguments.length;
  return chars;
}
