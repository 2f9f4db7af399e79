import type { Db } from "@/db/client";
import type { AgentRow } from "@/db/schema";
import type { Clock } from "@/server/kit/clock";
import { endpointsProvider } from "@/server/model-endpoints";
import { activeContext, metrics, tracingOn } from "@/server/observability";
import type { ChatTurn } from "@/server/providers";
import { agentHasTools, openToolbox, type Toolbox } from "@/server/tools";
import { startDeadline } from "./deadline";
import { classifyFailure } from "./failure";
import type { Decision, PausedTurns } from "./pause";
import { type CallSettings, modelRequest } from "./request";
import type { ModelRuntime } from "./runtime";
import { runTurns, type ToolEvent, type TurnsResult } from "./turns";

/**
 * A finished reply: its model (which prices it), the agent's model endpoint that answered (null:
 * the configured provider), the tokens of all its turns, its tool calls.
 */
export type ModelReply = Omit<TurnsResult, "answeredBy"> & {
  model: string;
  endpoint: string | null;
};

export type ModelCall = {
  generate(): Promise<ModelReply>;
  /**
   * The reply as it comes, one piece per network read, tool events between; returns the whole
   * reply. Stopping early closes the upstream call and cancels a tool call in flight.
   */
  stream(): AsyncGenerator<string | ToolEvent, ModelReply, undefined>;
  /** A failure of this call in the client's terms: timeout, client gone, provider error. */
  failure(error: unknown): unknown;
  /** Stops the deadline and frees the model slot; safe to call more than once. */
  end(): void;
};

/** What a model call reads of its agent: the chat's opening statement selects only these. */
export type CalledAgent = Pick<
  AgentRow,
  | "aid"
  | "name"
  | "prompt"
  | "model"
  | "temperature"
  | "maxToolSteps"
  | "mcpServers"
  | "modelEndpoints"
>;

/** Starts a call of `agent`'s model, bounded by LLM_TIMEOUT_MS and `signal`; it owns the slot. */
export function startModelCall(
  runtime: ModelRuntime,
  options: {
    agent: CalledAgent;
    history: ChatTurn[];
    question: string;
    releaseSlot: () => void;
    signal?: AbortSignal;
    settings?: CallSettings;
    /** Where the circuits of the agent's model endpoints are kept, and their clock. */
    store: { db: Db; clock: Clock };
    /** Turns paused for approvals, to go on from (`history` and `question` are then not read). */
    resume?: { paused: PausedTurns; decisions: Record<string, Decision> };
  },
): ModelCall {
  const { llm, chat } = runtime;
  const { agent } = options;
  const deadline = startDeadline(llm.timeoutMs, options.signal);
  const provider =
    agent.modelEndpoints.length === 0
      ? runtime.provider
      : endpointsProvider(runtime.endpoints, {
          aid: agent.aid,
          endpoints: agent.modelEndpoints,
          ...options.store,
          deadlineAt: Date.now() + llm.timeoutMs,
        });
  const withTools = agentHasTools(agent);
  const request = modelRequest(
    agent,
    // Without tools on offer, past tool turns are left out: some providers refuse them then.
    withTools ? options.history : withoutToolTurns(options.history),
    options.question,
    llm,
    deadline.signal,
    options.settings,
  );
  // Its turns' and tools' spans go in the context it was started in: the chat's, or the run's.
  const trace = tracingOn() ? activeContext() : undefined;
  const turns = (toolbox: Toolbox | undefined, stream: boolean) =>
    runTurns({
      trace,
      provider,
      request,
      toolbox,
      maxSteps: agent.maxToolSteps,
      cap: chat.maxReplyChars,
      stream,
      ...(options.resume ? { resume: options.resume } : {}),
    });
  const toolbox = () =>
    withTools ? openToolbox(runtime.tools, agent, deadline.signal) : Promise.resolve(undefined);
  // The model that answers: the endpoint's that answered, the provider's own when it has only
  // one (echo), else the request's.
  const answered = ({ answeredBy, ...turns }: TurnsResult): ModelReply => ({
    ...turns,
    model: answeredBy?.model ?? provider.model ?? request.model,
    endpoint: answeredBy?.endpoint ?? null,
  });
  let ended = false;
  return {
    async generate() {
      const started = performance.now();
      const all = turns(await toolbox(), false);
      let next = await all.next();
      while (!next.done) next = await all.next();
      return observeCall(answered(next.value), started, false);
    },
    async *stream() {
      const started = performance.now();
      const reply = yield* turns(await toolbox(), true);
      return observeCall(answered(reply), started, true);
    },
    failure: (error) => classifyFailure(error, deadline, llm.timeoutMs),
    end() {
      if (ended) return;
      ended = true;
      deadline.clear();
      options.releaseSlot();
    },
  };
}

/** A completed call's duration and tokens (tokens the provider spent, delivered or not). */
function observeCall(reply: ModelReply, started: number, stream: boolean): ModelReply {
  metrics.modelCall.observe({ stream: String(stream) }, (performance.now() - started) / 1000);
  metrics.tokens.inc({ direction: "in" }, reply.usage.input_tokens);
  metrics.tokens.inc({ direction: "out" }, reply.usage.output_tokens);
  return reply;
}

function withoutToolTurns(history: ChatTurn[]): ChatTurn[] {
  return history.some((turn) => turn.role === "tool")
    ? history.filter((turn) => turn.role !== "tool" && !("tool_calls" in turn))
    : history;
}
