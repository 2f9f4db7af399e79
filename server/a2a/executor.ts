import { randomUUID } from "node:crypto";
import type { Message, Part, Task } from "@a2a-js/sdk";
import { TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { type ChatEvent, Q_MAX_LENGTH } from "@/server/chat/schema";
import { problemFromError } from "@/server/frame/errors";
import { withoutLoneSurrogate, withoutNul } from "@/server/kit/text";
import { log } from "@/server/observability";
import { threadOfContext } from "./schema";

/** A turn of the agent, as a chat stream; stopped by `signal` as a client that leaves stops it. */
export type Turn = (
  args: { message: string; thread_id: string },
  signal: AbortSignal,
) => AsyncIterable<ChatEvent>;

/** How often a running task looks whether another instance cancelled it. */
const CANCEL_POLL_MS = 250;

/** Refusals of the turn that are the agent's decision not to do it: rejected, not failed. */
const REJECTIONS = new Set(["quota_exceeded", "rate_limited", "validation_failed"]);

const textPart = (value: string): Part => ({
  content: { $case: "text", value },
  metadata: {},
  filename: "",
  mediaType: "text/plain",
});

const agentMessage = (task: Pick<Task, "id" | "contextId">, text: string): Message => ({
  role: 2, // ROLE_AGENT
  messageId: randomUUID(),
  taskId: task.id,
  contextId: task.contextId,
  parts: [textPart(text)],
  metadata: {},
  extensions: [],
  referenceTaskIds: [],
});

/**
 * The agent's turn as an A2A task: working once the chat takes it, its reply streamed as one
 * text artifact, then completed; rejected when a limit refuses it, failed when the model does,
 * cancelled when any instance cancels it (seen in `a2a_tasks` within CANCEL_POLL_MS, and the chat stopped as a
 * client that leaves stops it, so its use is given back).
 */
export function chatExecutor(turn: Turn, canceled: (taskId: string) => Promise<boolean>) {
  const executor: AgentExecutor = {
    execute: async (request: RequestContext, bus: ExecutionEventBus) => {
      const { taskId: id, contextId, userMessage } = request;
      const task = { id, contextId };
      const statusOf = (state: TaskState, text?: string) => ({
        state,
        timestamp: new Date().toISOString(),
        message: text === undefined ? undefined : agentMessage(task, text),
      });
      const status = (state: TaskState, text?: string) =>
        bus.publish(
          AgentEvent.statusUpdate({
            taskId: id,
            contextId,
            status: statusOf(state, text),
            metadata: {},
          }),
        );
      // The task's first event: working once the chat took the turn, or already refused.
      const announce = (state: TaskState, text?: string) =>
        bus.publish(
          AgentEvent.task({
            ...task,
            status: statusOf(state, text),
            artifacts: [],
            history: [userMessage],
            metadata: {},
          }),
        );
      const texts = userMessage.parts.flatMap((part) =>
        part.content?.$case === "text" ? [part.content.value] : [],
      );
      const refusal = refusalOf(texts, userMessage.parts.length);
      if (refusal) return announce(TaskState.TASK_STATE_REJECTED, refusal);
      const cancel = new AbortController();
      const iterator = turn(
        { message: texts.join("\n"), thread_id: threadOfContext(contextId) },
        cancel.signal,
      )[Symbol.asyncIterator]();
      let announced = false;
      let stopped = false;
      let done = false;
      let watch: ReturnType<typeof setInterval> | undefined;
      // The reply's pieces as the model writes them, appended; then the whole reply, replacing
      // them, so that the task keeps it as one text part.
      const artifactId = randomUUID();
      let first = true;
      const piece = (text: string, last: boolean) => {
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId: id,
            contextId,
            artifact: {
              artifactId,
              name: "reply",
              description: "",
              parts: [textPart(text)],
              metadata: {},
              extensions: [],
            },
            append: !first && !last,
            lastChunk: last,
            metadata: {},
          }),
        );
        first = false;
      };
      try {
        for (;;) {
          const next = await iterator.next();
          if (next.done) break;
          if (next.value.type === "start") {
            announce(TaskState.TASK_STATE_WORKING);
            announced = true;
            watch = setInterval(() => {
              canceled(id).then(
                (yes) => {
                  if (!yes || done) return;
                  stopped = true;
                  cancel.abort();
                },
                () => {},
              );
            }, CANCEL_POLL_MS);
          } else if (next.value.type === "delta") piece(next.value.text, false);
          else if (next.value.type === "done") piece(next.value.reply, true);
        }
        if (stopped) status(TaskState.TASK_STATE_CANCELED, "The task was cancelled.");
        else status(TaskState.TASK_STATE_COMPLETED);
      } catch (error) {
        if (stopped) return status(TaskState.TASK_STATE_CANCELED, "The task was cancelled.");
        const problem = problemFromError(error);
        if (problem.status >= 500 && problem.code === "internal_error")
          log.error({ err: error }, "An A2A task of an agent failed");
        const state = REJECTIONS.has(problem.code)
          ? TaskState.TASK_STATE_REJECTED
          : TaskState.TASK_STATE_FAILED;
        if (announced) status(state, problem.detail);
        else announce(state, problem.detail);
      } finally {
        done = true;
        clearInterval(watch);
        await iterator.return?.().catch(() => {});
      }
    },
    // A cancel is written to the task's row by the SDK's handler; the running turn sees it there.
    cancelTask: async () => {},
  };
  return executor;
}

/** Why a message is not taken, if it is not: the sentence the rejected task carries. */
function refusalOf(texts: string[], parts: number): string | undefined {
  const text = texts.join("\n");
  if (texts.length !== parts || text.trim() === "")
    return "This agent takes text only: send the message as one or more text parts.";
  if (text.length > Q_MAX_LENGTH)
    return `The message has ${text.length.toLocaleString("en")} characters; at most ${Q_MAX_LENGTH.toLocaleString("en")} are taken.`;
  if (!withoutNul(text) || !withoutLoneSurrogate(text))
    return "The message holds a NUL character or a lone surrogate, which no text may hold.";
  return undefined;
}
