import { ADMIN, adminErrors, problem } from "../documented";
import { endpoint } from "../endpoint";
import * as examples from "./examples-requests";

/** GET /requests: the request log, one row per chat request, newest first (admin). */

export const requestEndpoints = [
  endpoint({
    method: "GET",
    path: "/requests",
    procedure: (p) => p.requests.list,
    operationId: "listRequests",
    summary:
      "The request log: one row per chat request (GET /{aid}/chat and POST /v1/chat/completions, replies and refusals alike), newest first, filtered by agent, caller, status and time.",
    description:
      "Rows are written in batches, about a second after the chat ends (the process that answers lists its own at once), and kept REQUEST_LOG_DAYS days. `next_cursor` pages to older requests, `prev_cursor` back to newer ones.",
    security: ADMIN,
    answers: { 200: { description: "One page of requests.", examples: examples.requestList } },
    refusals: {
      400: problem(
        "A bad filter (aid, caller, status, from, to), limit or cursor; the problem names it.",
      ),
      ...adminErrors,
    },
  }),
];
