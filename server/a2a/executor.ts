import { randomUUID } from "node:crypto";
import type { Artifact, Message, Part, Task } from "@a2a-js/sdk";
import { TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import {
  type Ask,
  type ChatEvent,
  type ChatReply,
  Q_MAX_LENGTH,
  waitingSentence,
} from "@/server/chat";
import { problemFromError } from "@/server/frame/errors";
import { withoutLoneSurrogate, withoutNul } from "@/server/kit/text";
import { log } from "@/server/observability";
import type { KeptRow } from "@/server/threads";
import { threadOfContext } from "./schema";

type TurnArgs = { message: string; thread_id: string };

/**
 * The agent's turn, streamed or whole; stopped by `signal` as a client that leaves stops it.
 * `keep` is what the chat's store statement writes with the reply (its task, completed).
 */
export type Turn = {
  stream: (args: TurnArgs, signal: AbortSignal) => AsyncIterable<ChatEvent>;
  whole: (args: TurnArgs, keep?: Ask["keep"]) => Promise<ChatReply>;
};

/** How often a running task looks whether another instance cancelled it. */
const CANCEL_POLL_MS = 250;

/**
 * Refusals of the turn, not failures of it: rejected (and so not kept). Those of the caller come
 * only from a SendMessage, whose caller is checked by the chat itself (server/routers/a2a.ts).
 */
const REJECTIONS = new Set([
  "quota_exceeded",
  "rate_limited",
  "validation_failed",
  "agent_not_found",
  "agent_paused",
  "key_required",
  "invalid_key",
]);

/**
 * What the executor asks of the task store: tasks it begins, the row of one kept with its
 * exchange, and cancels from anywhere.
 */
export type TaskLookups = {
  begin(taskId: string): void;
  keptRow(task: Task): KeptRow;
  canceled(taskId: string): Promise<boolean>;
};

const textPart = (value: string): Part => ({
  content: { $case: "text", value },
  metadata: {},
  filename: "",
  mediaType: "text/plain",
});

const replyArtifact = (artifactId: string, text: string): Artifact => ({
  artifactId,
  name: "reply",
  description: "",
  parts: [textPart(text)],
  metadata: {},
  extensions: [],
});

/** A task's events, for one request's task. */
function taskEvents(request: RequestContext, bus: ExecutionEventBus) {
  const { taskId: id, contextId, userMessage } = request;
  const statusOf = (state: TaskState, text?: string) => ({
    state,
    timestamp: new Date().toISOString(),
    message: text === undefined ? undefined : agentMessage({ id, contextId }, text),
  });
  const taskOf = (state: TaskState, text?: string, artifacts: Artifact[] = []): Task => ({
    id,
    contextId,
    status: statusOf(state, text),
    artifacts,
    history: [userMessage],
    metadata: {},
  });
  return {
    taskOf,
    /** The task's first event: working once the chat took the turn, or already settled. */
    announce: (state: TaskState, text?: string, artifacts: Artifact[] = []) =>
      bus.publish(AgentEvent.task(taskOf(state, text, artifacts))),
    /** A task already made, as its first event. */
    publish: (task: Task) => bus.publish(AgentEvent.task(task)),
    status: (state: TaskState, text?: string) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId: id,
          contextId,
          status: statusOf(state, text),
          metadata: {},
        }),
      ),
    piece: (artifact: Artifact, append: boolean, last: boolean) =>
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId: id,
          contextId,
          artifact,
          append,
          lastChunk: last,
          metadata: {},
        }),
      ),
  };
}

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

/** A turn that failed, as the task's state and the sentence its status carries. */
function failureOf(error: unknown): [TaskState, string] {
  const problem = problemFromError(error);
  if (problem.status >= 500 && problem.code === "internal_error")
    log.error({ err: error }, "An A2A task of an agent failed");
  const state = REJECTIONS.has(problem.code)
    ? TaskState.TASK_STATE_REJECTED
    : TaskState.TASK_STATE_FAILED;
  return [state, problem.detail];
}

/**
 * The agent's turn as an A2A task. Asked by SendMessage, which answers when it ends (nobody
 * knows its id before): the chat's JSON turn, the task told once, settled. Streamed, or sent to
 * return at once: working once the chat takes it, its reply streamed as one text artifact, then
 * completed; cancelled when any instance cancels it (seen in `a2a_tasks` within CANCEL_POLL_MS,
 * the chat stopped as a client that leaves stops it, so its use is given back). Either way
 * rejected when a limit refuses it, failed when the model fails.
 */
export function chatExecutor(turn: Turn, tasks: TaskLookups, streamed: boolean) {
  const executor: AgentExecutor = {
    execute: async (request: RequestContext, bus: ExecutionEventBus) => {
      if (!request.task) tasks.begin(request.taskId);
      const events = taskEvents(request, bus);
      const { parts } = request.userMessage;
      const texts = parts.flatMap((part) =>
        part.content?.$case === "text" ? [part.content.value] : [],
      );
      const refusal = refusalOf(texts, parts.length);
      if (refusal) return events.announce(TaskState.TASK_STATE_REJECTED, refusal);
      const args = { message: texts.join("\n"), thread_id: threadOfContext(request.contextId) };
      if (streamed || request.request.configuration?.returnImmediately)
        return streamTurn(turn, args, request.taskId, events, (id) => tasks.canceled(id));
      try {
        // A new task, completed, is written with its exchange (one statement); the SDK's save
        // of it then finds it written. A task continued is the store's to write.
        let kept: Task | undefined;
        const keep = request.task
          ? undefined
          : ({ text }: { text: string }) => {
              const artifact = replyArtifact(randomUUID(), text);
              kept = events.taskOf(TaskState.TASK_STATE_COMPLETED, undefined, [artifact]);
              return tasks.keptRow(kept);
            };
        const reply = await turn.whole(args, keep);
        if (reply.status === "completed" && kept) return events.publish(kept);
        const artifact = replyArtifact(randomUUID(), reply.reply);
        if (reply.status === "completed")
          return events.announce(TaskState.TASK_STATE_COMPLETED, undefined, [artifact]);
        // Waiting for approvals: the SDK ends a request at an input-required status update (a
        // task announced in that state would keep it open, waiting for one).
        events.announce(TaskState.TASK_STATE_WORKING, undefined, [artifact]);
        events.status(TaskState.TASK_STATE_INPUT_REQUIRED, waitingSentence(reply));
      } catch (error) {
        events.announce(...failureOf(error));
      }
    },
    // A cancel is written to the task's row by the SDK's handler; the running turn sees it there.
    cancelTask: async () => {},
  };
  return executor;
}

async function streamTurn(
  turn: Turn,
  args: TurnArgs,
  id: string,
  events: ReturnType<typeof taskEvents>,
  canceled: (taskId: string) => Promise<boolean>,
): Promise<void> {
  const cancel = new AbortController();
  const iterator = turn.stream(args, cancel.signal)[Symbol.asyncIterator]();
  let announced = false;
  let stopped = false;
  let done = false;
  let waiting: string | undefined;
  let watch: ReturnType<typeof setInterval> | undefined;
  // The reply's pieces as the model writes them, appended; then the whole reply, replacing
  // them, so that the task keeps it as one text part.
  const artifactId = randomUUID();
  let first = true;
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      const event = next.value;
      if (event.type === "start") {
        events.announce(TaskState.TASK_STATE_WORKING);
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
      } else if (event.type === "delta" || event.type === "done") {
        const last = event.type === "done";
        if (event.type === "done" && event.status === "requires_approval")
          waiting = waitingSentence(event);
        events.piece(
          replyArtifact(artifactId, last ? event.reply : event.text),
          !first && !last,
          last,
        );
        first = false;
      }
    }
    if (stopped) events.status(TaskState.TASK_STATE_CANCELED, "The task was cancelled.");
    else if (waiting) events.status(TaskState.TASK_STATE_INPUT_REQUIRED, waiting);
    else events.status(TaskState.TASK_STATE_COMPLETED);
  } catch (error) {
    if (stopped) return events.status(TaskState.TASK_STATE_CANCELED, "The task was cancelled.");
    if (announced) events.status(...failureOf(error));
    else events.announce(...failureOf(error));
  } finally {
    done = true;
    clearInterval(watch);
    await iterator.return?.().catch(() => {});
  }
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
