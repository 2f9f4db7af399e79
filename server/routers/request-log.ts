import { router, viewerProcedure } from "@/server/frame/trpc";
import { adminErrors, problem, rest } from "@/server/http";
import {
  listRequests,
  listRequestsInputSchema,
  listRequestsOutputSchema,
  requestBreakdown,
  requestBreakdownInputSchema,
  requestBreakdownSchema,
} from "@/server/request-log";
import * as examples from "./examples-requests";

/** GET /requests: the request log, one row per chat request, newest first (admin). */

export const requestLogRouter = router({
  list: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/requests",
        operationId: "listRequests",
        summary:
          "The request log: one row per chat request (GET /{aid}/chat and POST /v1/chat/completions, replies and refusals alike), newest first, filtered by agent, caller, status and time.",
        description:
          "Rows are written in batches, about a second after the chat ends (the process that answers lists its own at once), and kept REQUEST_LOG_DAYS days. `next_cursor` pages to older requests, `prev_cursor` back to newer ones.",
        answers: { 200: { description: "One page of requests.", examples: examples.requestList } },
        refusals: {
          400: problem(
            "A bad filter (aid, caller, status, from, to), limit or cursor; the problem names it.",
          ),
          ...adminErrors,
        },
      }),
    )
    .input(listRequestsInputSchema)
    .output(listRequestsOutputSchema)
    .query(({ ctx, input }) => listRequests(ctx, input)),

  breakdown: viewerProcedure
    .meta(
      rest({
        method: "GET",
        path: "/requests/breakdown",
        operationId: "requestBreakdown",
        summary:
          "Chat requests with their tokens and cost grouped by model or by agent key (callers without a key by kind), most tokens first, over a range of the request log.",
        description:
          "From the request log, so over its REQUEST_LOG_DAYS days at most; usage by day or hour is GET /usage's.",
        answers: { 200: { description: "The groups." } },
        refusals: {
          400: problem("A bad `by`, aid, from or to; the problem names it."),
          ...adminErrors,
        },
      }),
    )
    .input(requestBreakdownInputSchema)
    .output(requestBreakdownSchema)
    .query(({ ctx, input }) => requestBreakdown(ctx, input)),
});
