import { router, viewerProcedure } from "@/server/frame/trpc";
import { adminErrors, problem, rest } from "@/server/http";
import {
  listMessages,
  listMessagesInputSchema,
  listMessagesOutputSchema,
  listThreads,
  listThreadsInputSchema,
  listThreadsOutputSchema,
} from "@/server/threads";
import * as examples from "./examples-chat";

/** GET /agents/{aid}/threads and a thread's messages: every caller's conversations (admin). */

export const threadsRouter = router({
  list: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/agents/{aid}/threads",
        operationId: "listThreads",
        summary:
          "The agent's threads of every caller, most recently active first, each with whose it is (keyset pages).",
        answers: { 200: { description: "One page of threads.", examples: examples.threadList } },
        refusals: {
          400: problem("Invalid query parameter, or a bad aid (as for GET /agents/{aid})."),
          ...adminErrors,
          404: problem("Unknown agent."),
        },
      }),
    )
    .input(listThreadsInputSchema)
    .output(listThreadsOutputSchema)
    .query(({ ctx, input }) => listThreads(ctx, input)),

  messages: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/agents/{aid}/threads/{chat_id}/messages",
        operationId: "listMessages",
        summary:
          "A thread's messages, the newest page first and oldest first within a page, with token usage on replies. `caller` (as the thread list gives it) says whose thread; the admin's own when left out.",
        answers: { 200: { description: "One page of messages.", examples: examples.messageList } },
        refusals: {
          400: problem("Invalid query parameter, or a bad aid or chat_id."),
          ...adminErrors,
          404: problem("Unknown agent."),
        },
      }),
    )
    .input(listMessagesInputSchema)
    .output(listMessagesOutputSchema)
    .query(({ ctx, input }) => listMessages(ctx, input)),
});
