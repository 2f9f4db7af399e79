import { A2A_PROTOCOL_VERSION } from "@a2a-js/sdk";
import { VersionNotSupportedError } from "@a2a-js/sdk/errors";
import { z } from "zod";
import {
  type A2aAnswer,
  a2aMessageSchema,
  agentCardInputSchema,
  agentCardJson,
  answerA2a,
  answeredWhole,
  jsonRpcError,
  TaskRows,
  type Turn,
} from "@/server/a2a";
import { getAgent } from "@/server/agents";
import { ask, askStreaming, checkChat } from "@/server/chat";
import { problemFromError } from "@/server/frame/errors";
import { mappedStream, publicProcedure, router } from "@/server/frame/trpc";
import { json, problem, rest, sseResponse } from "@/server/http";
import * as examples from "./examples-a2a";

// An agent as an A2A 1.0 server: its card (GET /{aid}/.well-known/agent-card.json) and its
// JSON-RPC binding (POST /{aid}/a2a), a message a chat logged with via `a2a`.

const A2A_BODY_MAX_BYTES = 64 * 1024;

const PUBLIC_OR_AGENT_KEY: Record<string, string[]>[] = [{}, { agentKey: [] }];

/** Refusals of who asks, answered in HTTP (401, 403, 404), not as a task. */
const CALLER_REFUSALS = new Set(["agent_not_found", "agent_paused", "key_required", "invalid_key"]);

const isStream = (answer: A2aAnswer): answer is AsyncGenerator<Record<string, unknown>> =>
  Symbol.asyncIterator in answer;

export const a2aRouter = router({
  handle: publicProcedure
    .meta(
      rest<A2aAnswer>({
        method: "POST",
        path: "/{aid}/a2a",
        operationId: "a2a",
        summary:
          "The agent as an A2A 1.0 server (JSON-RPC): send or stream a message, get or cancel a task.",
        description:
          "A JSON-RPC 2.0 message of A2A 1.0, with the header `A2A-Version: 1.0`: SendMessage (answered when the task ends), SendStreamingMessage (server-sent events: the task, its reply as a streamed text artifact, its last status), GetTask and CancelTask. A message is a chat with the same access, rate limit, quota and token budgets as GET /{aid}/chat; its context is the caller's thread `a2a:<contextId>`. A task is working until it is completed, rejected (a limit refused it, or the message is not text), failed (the model failed) or cancelled; a cancel works from any instance, and gives the message's use back. The caller is checked before the message is read: 401 when the agent takes its keys only and none (or a wrong one) is sent.",
        security: PUBLIC_OR_AGENT_KEY,
        body: { required: true, maxBytes: A2A_BODY_MAX_BYTES, examples: examples.sendMessage },
        handle: async ({ request, call, input }) => {
          const version = request.headers.get("a2a-version") ?? "0.3";
          if (version !== A2A_PROTOCOL_VERSION) {
            const refused = new VersionNotSupportedError(
              `A2A-Version '${version.slice(0, 20)}' is not served: send A2A-Version: ${A2A_PROTOCOL_VERSION}.`,
            );
            return json(jsonRpcError(input.id, refused), 200);
          }
          const answer = await call(input);
          if (!isStream(answer)) return json(answer, 200);
          return sseResponse(answer as AsyncIterable<{ type: string }>, request.signal, undefined, {
            frame: (event) => `data: ${JSON.stringify(event)}\n\n`,
            failure: (failed) =>
              `data: ${JSON.stringify(jsonRpcError(input.id, new Error(failed.detail)))}\n\n`,
          });
        },
        answers: {
          200: {
            description:
              "The JSON-RPC answer (a task, or an error for a malformed message, an unknown method, a task not found or not cancelable), or for SendStreamingMessage its events.",
            schema: z.looseObject({ jsonrpc: z.literal("2.0") }).meta({ id: "A2aAnswer" }),
            examples: examples.task,
            content: { "text/event-stream": { schema: { type: "string" } } },
          },
        },
        refusals: {
          400: problem("A body that is not JSON, or an aid that cannot be one."),
          401: problem(
            "key_required: the agent takes chats from its keys only; invalid_key: the key sent is wrong, revoked or another agent's.",
          ),
          403: problem("agent_paused: the agent takes no chats while it is paused."),
          404: problem("Unknown agent."),
          413: problem(`The body is larger than ${A2A_BODY_MAX_BYTES / 1024} KiB.`),
          415: problem("The body is not sent as Content-Type: application/json."),
        },
      }),
    )
    .input(a2aMessageSchema)
    .mutation(async ({ ctx, input, signal }) => {
      const { aid, ...message } = input;
      // A message answered whole is a chat, whose opening checks the caller itself: its refusal
      // of the caller is answered in HTTP, as this check's would be. Anything else is checked.
      const whole = answeredWhole(message);
      const agent = whole ? { aid, name: aid } : await checkChat(ctx, { aid });
      let refusedCaller: unknown;
      const asked = (args: { message: string; thread_id: string }) => ({
        via: "a2a" as const,
        aid,
        chatId: args.thread_id,
        question: args.message,
      });
      const turn: Turn = {
        stream: (args, cancel) =>
          mappedStream(
            askStreaming(ctx, asked(args), signal ? AbortSignal.any([signal, cancel]) : cancel),
          ),
        whole: async (args, keep) => {
          try {
            return await ask(ctx, keep ? { ...asked(args), keep } : asked(args), signal);
          } catch (error) {
            if (CALLER_REFUSALS.has(problemFromError(error).code)) refusedCaller = error;
            throw error;
          }
        },
      };
      const tasks = new TaskRows({ db: ctx.db, caller: ctx.caller, clock: ctx.clock, aid });
      const card = { aid, name: agent.name, keyOnly: false, publicUrl: ctx.config.publicUrl };
      const answer = await answerA2a(message, card, tasks, turn);
      if (refusedCaller) throw refusedCaller;
      return answer;
    }),

  card: publicProcedure
    .meta(
      rest({
        method: "GET",
        path: "/{aid}/.well-known/agent-card.json",
        operationId: "agentCard",
        summary: "The agent's A2A agent card: its name, skill, JSON-RPC interface and security.",
        description:
          "Public for every agent, paused or taking its keys only (its card then requires the bearer scheme), so that A2A clients find how to call it.",
        answers: {
          200: {
            description: "The agent card (A2A 1.0).",
            schema: z.looseObject({ name: z.string() }).meta({ id: "AgentCard" }),
          },
        },
        refusals: { 400: problem("An aid that cannot be one."), 404: problem("Unknown agent.") },
      }),
    )
    .input(agentCardInputSchema)
    .output(z.looseObject({ name: z.string() }))
    .query(async ({ ctx, input }) => {
      const agent = await getAgent(ctx, input.aid);
      return agentCardJson({
        aid: agent.aid,
        name: agent.name,
        keyOnly: agent.chat_access === "key",
        publicUrl: ctx.config.publicUrl,
      });
    }),
});
