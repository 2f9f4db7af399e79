import type { ZodOpenApiPathsObject } from "zod-openapi";
import { chatInputSchema, chatReplySchema } from "@/server/chat";
import {
  listMessagesInputSchema,
  listMessagesOutputSchema,
  listThreadsInputSchema,
  listThreadsOutputSchema,
} from "@/server/threads";
import * as examples from "./examples-chat";
import { ADMIN, adminErrors, json, problem, split } from "./parts";

/** Chat (public, or with an agent's key) and the admin's reading of threads and messages. */

const rateLimitHeaders = {
  "X-RateLimit-Limit": {
    description: "Chats a minute this caller may send (absent when no limit applies).",
    schema: { type: "integer" as const },
  },
  "X-RateLimit-Remaining": { schema: { type: "integer" as const } },
  "X-RateLimit-Reset": {
    description: "Seconds until the caller's window ends.",
    schema: { type: "integer" as const },
  },
};

const chat = split(chatInputSchema, ["aid"]);
const threads = split(listThreadsInputSchema, ["aid"]);
const messages = split(listMessagesInputSchema, ["aid", "chat_id"]);

export const chatPaths: ZodOpenApiPathsObject = {
  "/{aid}/chat": {
    get: {
      operationId: "chat",
      summary: "Ask an agent; its reply as text, JSON or server-sent events (by Accept).",
      description:
        "Threads belong to their caller: a key, or the client address when there is none; the same chat_id of two callers is two threads. The caller's rate limit (the agent's rate_limit_rpm) is counted, then the message quota is reserved before the model is called and given back when the reply is not delivered. With Accept: text/event-stream the events are `start` {aid, chat_id, rate_limit}, `delta` {text} (repeated), with `tool_call` {id, step, server, name, arguments} and `tool_result` (a ToolCall: result or error, duration_ms) between deltas when the agent's model calls tools from its MCP servers, then `done` (the JSON reply) or `error` (a problem). text/plain gives the final text only. Tool failures (unreachable server, tool error, timeout) are given to the model, not the client: only a failure of the model fails the chat.",
      // Public, or with one of the agent's keys (required when its chat_access is `key`).
      security: [{}, { agentKey: [] }],
      requestParams: { path: chat.path, query: chat.rest },
      responses: {
        "200": {
          description: "The reply.",
          headers: rateLimitHeaders,
          content: {
            "text/plain": { schema: { type: "string" }, examples: examples.replyText },
            ...json(chatReplySchema, examples.reply),
            "text/event-stream": { schema: { type: "string" }, examples: examples.replyEvents },
          },
        },
        "400": problem(
          "Missing or invalid q or chat_id, or a bad aid (as for GET /agents/{aid}): no quota is used.",
        ),
        "401": problem(
          "key_required: the agent takes chats from its keys only; invalid_key: the key sent (any bearer token that starts with `ak_`) is wrong or malformed, revoked, or another agent's.",
        ),
        "404": problem("Unknown agent."),
        "429": {
          ...problem(
            "rate_limited: the caller's chats a minute are used up (no quota is used); quota_exceeded: the agent's message quota is. Retry-After says when it frees (none for a total quota).",
            examples.quotaExceeded,
          ),
          headers: rateLimitHeaders,
        },
        "502": problem("The model provider failed."),
        "503": problem("Every model slot of this server is busy, or the database is unreachable."),
        "504": problem("The model provider did not answer in time."),
      },
    },
  },
  "/agents/{aid}/threads": {
    get: {
      operationId: "listThreads",
      summary:
        "The agent's threads of every caller, most recently active first, each with whose it is (keyset pages).",
      security: ADMIN,
      requestParams: { path: threads.path, query: threads.rest },
      responses: {
        "200": {
          description: "One page of threads.",
          content: json(listThreadsOutputSchema, examples.threadList),
        },
        "400": problem("Invalid query parameter, or a bad aid (as for GET /agents/{aid})."),
        ...adminErrors,
        "404": problem("Unknown agent."),
      },
    },
  },
  "/agents/{aid}/threads/{chat_id}/messages": {
    get: {
      operationId: "listMessages",
      summary:
        "A thread's messages, the newest page first and oldest first within a page, with token usage on replies. `caller` (as the thread list gives it) says whose thread; the admin's own when left out.",
      security: ADMIN,
      requestParams: { path: messages.path, query: messages.rest },
      responses: {
        "200": {
          description: "One page of messages.",
          content: json(listMessagesOutputSchema, examples.messageList),
        },
        "400": problem("Invalid query parameter, or a bad aid or chat_id."),
        ...adminErrors,
        "404": problem("Unknown agent."),
      },
    },
  },
};
