import { example } from "@/server/http";
import { listRequestsOutputSchema } from "@/server/request-log";

export const requestList = {
  recent: example(listRequestsOutputSchema, "A reply, then a refusal by the daily quota", {
    requests: [
      {
        id: 1042,
        started_at: "2026-11-24T09:12:41.208Z",
        via: "completions",
        aid: "support-bot",
        caller: "key:3f9a1c0d2b4e",
        caller_label: "key 'mobile app'",
        chat_id: "openai",
        status: 429,
        code: "quota_exceeded",
        latency_ms: 3,
        model: null,
        endpoint: null,
        input_tokens: null,
        output_tokens: null,
        cost: null,
        request_id: "9d0c4b1e-5a55-4c59-9a47-0f3e1c2b7d61",
        stands_for: 1,
      },
      {
        id: 1041,
        started_at: "2026-11-24T09:12:40.517Z",
        via: "chat",
        aid: "support-bot",
        caller: "key:3f9a1c0d2b4e",
        caller_label: "key 'mobile app'",
        chat_id: "ticket-42",
        status: 200,
        code: null,
        latency_ms: 812,
        model: "gpt-4o-mini",
        endpoint: null,
        input_tokens: 42,
        output_tokens: 17,
        cost: 0.0000165,
        request_id: "c1f0a7e2-2b9d-4f0e-8d1a-6b5e3c9f4a20",
        stands_for: 1,
      },
    ],
    next_cursor: "eyJhdCI6IjIwMjYtMTEtMjRUMDk6MTI6NDAuNTE3WiIsImlkIjoxMDQxfQ",
    prev_cursor: null,
  }),
};
