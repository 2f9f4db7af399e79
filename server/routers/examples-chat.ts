import type { z } from "zod";
import { cancelChatOutputSchema, chatReplySchema } from "@/server/chat";
import { example, problemSchema } from "@/server/http";
import { responseObjectSchema } from "@/server/responses";
import { listMessagesOutputSchema, listThreadsOutputSchema } from "@/server/threads";
import { response } from "./examples-responses";

/** Real answers of the service for chat, threads and messages (a model on loopback answered). */

export const replyText = {
  text: {
    summary: "The reply only",
    value: "Your order #1042 left our warehouse yesterday; it should arrive by Thursday.",
  },
};

export const reply = {
  json: example(chatReplySchema, "The reply with its usage, quota and rate limit", {
    aid: "support-bot",
    chat_id: "ticket-42",
    reply: "Your order #1042 left our warehouse yesterday; it should arrive by Thursday.",
    model: "gpt-4o-mini",
    endpoint: null,
    finish_reason: "stop",
    usage: {
      input_tokens: 42,
      output_tokens: 17,
      estimated: false,
      cost: 0.0000165,
    },
    quota: {
      message_count_total: 2,
      message_limit_total: null,
      message_count_monthly: 2,
      message_limit_monthly: 2000,
      message_count_daily: 2,
      message_limit_daily: 100,
      autonomous_count_total: 0,
      autonomous_limit_total: null,
      autonomous_count_monthly: 0,
      autonomous_limit_monthly: 3000,
      input_tokens_total: 42,
      output_tokens_total: 17,
      cost_total: 0.0000165,
      token_limit_total: null,
      input_tokens_monthly: 42,
      output_tokens_monthly: 17,
      cost_monthly: 0.0000165,
      token_limit_monthly: null,
      input_tokens_daily: 42,
      output_tokens_daily: 17,
      cost_daily: 0.0000165,
      token_limit_daily: null,
      last_message_at: "2026-11-24T08:52:06.241Z",
      last_autonomous_at: null,
      daily_resets_at: "2026-11-25T00:00:00.000Z",
      monthly_resets_at: "2026-12-01T00:00:00.000Z",
    },
    remaining: {
      messages_total: null,
      messages_monthly: 1998,
      messages_daily: 98,
    },
    rate_limit: {
      limit: 60,
      remaining: 58,
      reset_s: 60,
    },
    tool_calls: [],
    status: "completed",
    approvals: [],
  }),
  withKey: example(chatReplySchema, "From a caller with a key (its own default thread)", {
    aid: "support-bot",
    chat_id: "default",
    reply: "You can return it within 30 days; the label is in your account.",
    model: "gpt-4o-mini",
    endpoint: null,
    finish_reason: "stop",
    usage: {
      input_tokens: 38,
      output_tokens: 15,
      estimated: false,
      cost: 0.0000147,
    },
    quota: {
      message_count_total: 4,
      message_limit_total: null,
      message_count_monthly: 4,
      message_limit_monthly: 2000,
      message_count_daily: 4,
      message_limit_daily: 100,
      autonomous_count_total: 0,
      autonomous_limit_total: null,
      autonomous_count_monthly: 0,
      autonomous_limit_monthly: 3000,
      input_tokens_total: 126,
      output_tokens_total: 45,
      cost_total: 0.0000459,
      token_limit_total: null,
      input_tokens_monthly: 126,
      output_tokens_monthly: 45,
      cost_monthly: 0.0000459,
      token_limit_monthly: null,
      input_tokens_daily: 126,
      output_tokens_daily: 45,
      cost_daily: 0.0000459,
      token_limit_daily: null,
      last_message_at: "2026-11-24T08:52:06.366Z",
      last_autonomous_at: null,
      daily_resets_at: "2026-11-25T00:00:00.000Z",
      monthly_resets_at: "2026-12-01T00:00:00.000Z",
    },
    remaining: {
      messages_total: null,
      messages_monthly: 1996,
      messages_daily: 96,
    },
    rate_limit: {
      limit: 60,
      remaining: 59,
      reset_s: 60,
    },
    tool_calls: [],
    status: "completed",
    approvals: [],
  }),
};

export const replyEvents = {
  stream: {
    summary: "start, the deltas, done, each with its id",
    value:
      'id: c1f0a7e2-2b9d-4f0e-8d1a-6b5e3c9f4a20/0\nevent: start\ndata: {"aid":"support-bot","chat_id":"default","rate_limit":{"limit":60,"remaining":57,"reset_s":60}}\n\nid: c1f0a7e2-2b9d-4f0e-8d1a-6b5e3c9f4a20/1\nevent: delta\ndata: {"text":"Your order #1042 left our warehouse yesterday."}\n\nid: c1f0a7e2-2b9d-4f0e-8d1a-6b5e3c9f4a20/2\nevent: done\ndata: {"aid":"support-bot","chat_id":"default","reply":"Your order #1042 left our warehouse yesterday.","model":"gpt-4o-mini","endpoint":null,"finish_reason":"stop","usage":{"input_tokens":42,"output_tokens":11,"estimated":false,"cost":0.0000129},"quota":{"message_count_total":3,"message_limit_total":null,"message_count_monthly":3,"message_limit_monthly":2000,"message_count_daily":3,"message_limit_daily":100,"autonomous_count_total":0,"autonomous_limit_total":null,"autonomous_count_monthly":0,"autonomous_limit_monthly":3000,"input_tokens_total":84,"output_tokens_total":34,"cost_total":0.000033,"token_limit_total":null,"input_tokens_monthly":84,"output_tokens_monthly":34,"cost_monthly":0.000033,"token_limit_monthly":null,"input_tokens_daily":84,"output_tokens_daily":34,"cost_daily":0.000033,"token_limit_daily":null,"last_message_at":"2026-11-24T08:52:06.294Z","last_autonomous_at":null,"daily_resets_at":"2026-11-25T00:00:00.000Z","monthly_resets_at":"2026-12-01T00:00:00.000Z"},"remaining":{"messages_total":null,"messages_monthly":1997,"messages_daily":97},"rate_limit":{"limit":60,"remaining":57,"reset_s":60},"tool_calls":[]}\n\n',
  },
};

export const quotaExceeded = {
  daily: example(problemSchema, "The daily message limit is reached", {
    type: "about:blank",
    title: "Too Many Requests",
    status: 429,
    detail:
      "Daily message limit reached for agent 'support-bot': 4 messages allowed, it resets at 2026-11-25T00:00:00Z.",
    code: "quota_exceeded",
    retry_after_s: 54474,
    limit: "message_limit_daily",
    limit_value: 4,
    rate_limit: {
      limit: 60,
      remaining: 56,
      reset_s: 60,
    },
    request_id: "ecd0cfcf-738b-4d68-b236-41bf1e27905a",
  }),
};

export const threadList = {
  everyCaller: example(
    listThreadsOutputSchema,
    "Threads of an address, a key and the autonomous runs",
    {
      threads: [
        {
          caller: "agent",
          caller_label: "autonomous runs",
          chat_id: "autonomous",
          message_count: 2,
          created_at: "2026-11-24T08:52:06.444Z",
          last_message_at: "2026-11-24T08:52:06.450Z",
        },
        {
          caller: "key:52bc2b2644ff",
          caller_label: "key 'mobile app'",
          chat_id: "default",
          message_count: 2,
          created_at: "2026-11-24T08:52:06.366Z",
          last_message_at: "2026-11-24T08:52:06.382Z",
        },
        {
          caller: "addr:41f2702a1ede5a6c",
          caller_label: "address #41f2702a",
          chat_id: "default",
          message_count: 4,
          created_at: "2026-11-24T08:52:06.151Z",
          last_message_at: "2026-11-24T08:52:06.323Z",
        },
        {
          caller: "addr:41f2702a1ede5a6c",
          caller_label: "address #41f2702a",
          chat_id: "ticket-42",
          message_count: 2,
          created_at: "2026-11-24T08:52:06.241Z",
          last_message_at: "2026-11-24T08:52:06.267Z",
        },
      ],
      next_cursor: null,
    },
  ),
};

export const messageList = {
  keyThread: example(listMessagesOutputSchema, "A key's thread (caller=key:52bc2b2644ff)", {
    messages: [
      {
        id: 7,
        role: "user",
        content: "Can I return it?",
        created_at: "2026-11-24T08:52:06.366Z",
        usage: null,
        tool_calls: [],
      },
      {
        id: 8,
        role: "assistant",
        content: "You can return it within 30 days; the label is in your account.",
        created_at: "2026-11-24T08:52:06.382Z",
        usage: {
          input_tokens: 38,
          output_tokens: 15,
          estimated: false,
          cost: 0.0000147,
        },
        tool_calls: [],
      },
    ],
    next_cursor: null,
  }),
};

export const begunInBackground = {
  begun: example(responseObjectSchema, "Begun in the background (Prefer: respond-async)", {
    // The completed response's own example, checked by the schema here as there.
    ...(response.completed.value as z.input<typeof responseObjectSchema>),
    id: "resp_8a1f3c5e7b9d2f4a6c8e0b1d3f5a7c9e",
    status: "in_progress",
    output: [],
    usage: null,
    instructions: null,
    background: true,
  }),
};

export const cancelled = {
  json: example(cancelChatOutputSchema, "The chat was stopped", {
    request_id: "c1f0a7e2-2b9d-4f0e-8d1a-6b5e3c9f4a20",
    cancelled: true,
  }),
};
