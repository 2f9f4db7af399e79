import { chatCompletionSchema } from "@/server/completions";
import { example, openAiErrorSchema } from "@/server/http";
import { listModelsOutputSchema, modelSchema } from "@/server/openai-models";

/** Real requests and answers of the OpenAI-compatible paths (a model on loopback answered). */

export const models = {
  list: example(listModelsOutputSchema, "The agents this caller may chat with", {
    object: "list",
    data: [
      { id: "support-bot", object: "model", created: 1764060726, owned_by: "agent-service" },
      { id: "travel-planner", object: "model", created: 1764060731, owned_by: "agent-service" },
    ],
    has_more: false,
    first_id: "support-bot",
    last_id: "travel-planner",
  }),
};

export const model = {
  one: example(modelSchema, "One agent as a model", {
    id: "support-bot",
    object: "model",
    created: 1764060726,
    owned_by: "agent-service",
  }),
};

export const completionRequest = {
  plain: {
    summary: "A question after a conversation",
    value: {
      model: "support-bot",
      messages: [
        { role: "system", content: "Answer in one sentence." },
        { role: "user", content: "Where is my order #1042?" },
        { role: "assistant", content: "It left our warehouse yesterday." },
        { role: "user", content: "When will it arrive?" },
      ],
      max_tokens: 200,
    },
  },
  streamed: {
    summary: "Streamed, with the usage at the end",
    value: {
      model: "support-bot",
      messages: [{ role: "user", content: "Where is my order #1042?" }],
      stream: true,
      stream_options: { include_usage: true },
    },
  },
};

export const completion = {
  json: example(chatCompletionSchema, "The reply", {
    id: "chatcmpl-B1vZ3yQk0w9m2cXr7hTq5nLpE8sJ",
    object: "chat.completion",
    created: 1764060740,
    model: "support-bot",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: "It should arrive by Thursday.",
          refusal: null,
        },
        finish_reason: "stop",
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 61, completion_tokens: 8, total_tokens: 69 },
  }),
};

export const completionEvents = {
  stream: {
    summary: "The reply as it is written, then the usage, then [DONE]",
    value:
      'data: {"id":"chatcmpl-Xq2d8VnL0aR5tY7uK1mB3cWe","object":"chat.completion.chunk","created":1764060741,"model":"support-bot","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null,"logprobs":null}],"usage":null}\n\n' +
      'data: {"id":"chatcmpl-Xq2d8VnL0aR5tY7uK1mB3cWe","object":"chat.completion.chunk","created":1764060741,"model":"support-bot","choices":[{"index":0,"delta":{"content":"It left our warehouse yesterday."},"finish_reason":null,"logprobs":null}],"usage":null}\n\n' +
      'data: {"id":"chatcmpl-Xq2d8VnL0aR5tY7uK1mB3cWe","object":"chat.completion.chunk","created":1764060741,"model":"support-bot","choices":[{"index":0,"delta":{},"finish_reason":"stop","logprobs":null}],"usage":null}\n\n' +
      'data: {"id":"chatcmpl-Xq2d8VnL0aR5tY7uK1mB3cWe","object":"chat.completion.chunk","created":1764060741,"model":"support-bot","choices":[],"usage":{"prompt_tokens":24,"completion_tokens":7,"total_tokens":31}}\n\n' +
      "data: [DONE]\n\n",
  },
};

export const modelNotFound = {
  notFound: example(openAiErrorSchema, "No such agent, or not one this caller may use", {
    error: {
      message:
        "The model 'gpt-4o' does not exist or you do not have access to it; GET /v1/models lists the agents you may chat with.",
      type: "invalid_request_error",
      param: null,
      code: "model_not_found",
    },
  }),
};

export const quotaExceeded = {
  quota: example(openAiErrorSchema, "The agent's daily message quota is used up", {
    error: {
      message:
        "Daily message limit reached for agent 'support-bot': 100 messages allowed, it resets at 2026-11-26T00:00:00Z.",
      type: "insufficient_quota",
      param: null,
      code: "quota_exceeded",
    },
  }),
};
