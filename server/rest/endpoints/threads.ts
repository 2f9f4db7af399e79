import { ADMIN, adminErrors, problem } from "../documented";
import { endpoint } from "../endpoint";
import * as examples from "./examples-chat";

export const threadEndpoints = [
  endpoint({
    method: "GET",
    path: "/agents/{aid}/threads",
    procedure: (p) => p.threads.list,
    operationId: "listThreads",
    summary:
      "The agent's threads of every caller, most recently active first, each with whose it is (keyset pages).",
    security: ADMIN,
    answers: { 200: { description: "One page of threads.", examples: examples.threadList } },
    refusals: {
      400: problem("Invalid query parameter, or a bad aid (as for GET /agents/{aid})."),
      ...adminErrors,
      404: problem("Unknown agent."),
    },
  }),
  endpoint({
    method: "GET",
    path: "/agents/{aid}/threads/{chat_id}/messages",
    procedure: (p) => p.threads.messages,
    operationId: "listMessages",
    summary:
      "A thread's messages, the newest page first and oldest first within a page, with token usage on replies. `caller` (as the thread list gives it) says whose thread; the admin's own when left out.",
    security: ADMIN,
    answers: { 200: { description: "One page of messages.", examples: examples.messageList } },
    refusals: {
      400: problem("Invalid query parameter, or a bad aid or chat_id."),
      ...adminErrors,
      404: problem("Unknown agent."),
    },
  }),
];
