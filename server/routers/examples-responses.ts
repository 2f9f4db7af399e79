/** A request of the `openai` package's responses.create and the service's answers. */

export const responseRequest = {
  plain: {
    summary: "A question, with instructions for this response",
    value: {
      model: "support-bot",
      input: "Where is my order #1042?",
      instructions: "Answer in one sentence.",
    },
  },
  continued: {
    summary: "The next question of the same conversation",
    value: {
      model: "support-bot",
      previous_response_id: "resp_3f9c0d2a7b1e4c5d8e6f0a1b2c3d4e5f",
      input: [{ role: "user", content: "When will it arrive?" }],
    },
  },
};

const reply = "Your order #1042 left our warehouse yesterday; it should arrive by Thursday.";

export const response = {
  completed: {
    summary: "The agent's reply",
    value: {
      id: "resp_3f9c0d2a7b1e4c5d8e6f0a1b2c3d4e5f",
      object: "response",
      created_at: 1795794488,
      status: "completed",
      model: "support-bot",
      output: [
        {
          type: "message",
          id: "msg_3f9c0d2a7b1e4c5d8e6f0a1b2c3d4e5f",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: reply, annotations: [] }],
        },
      ],
      usage: {
        input_tokens: 42,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 17,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 59,
      },
      instructions: "Answer in one sentence.",
      previous_response_id: null,
      store: true,
      metadata: {},
      error: null,
      incomplete_details: null,
      max_output_tokens: null,
      temperature: null,
      top_p: null,
      parallel_tool_calls: true,
      tool_choice: "auto",
      tools: [],
      text: { format: { type: "text" } },
      truncation: "disabled",
      background: false,
    },
  },
};

export const events = {
  stream: {
    summary: "The events of a streamed response (the first and last in full)",
    value: [
      'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_…","object":"response","status":"in_progress","output":[],…}}',
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_…","output_index":0,"content_index":0,"delta":"Your order"}',
      'event: response.completed\ndata: {"type":"response.completed","sequence_number":12,"response":{"id":"resp_…","status":"completed",…}}',
    ].join("\n\n"),
  },
};
