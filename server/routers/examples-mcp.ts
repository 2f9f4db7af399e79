/** Real messages of an MCP client and the service's answers (the MCP SDK's client asked). */

export const toolCall = {
  chat: {
    summary: "A call of the chat tool",
    value: {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "chat",
        arguments: { message: "Where is my order #1042?", thread_id: "ticket-42" },
      },
    },
  },
  list: {
    summary: "The tools",
    value: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
  },
};

export const toolResult = {
  reply: {
    summary: "The agent's reply",
    value: {
      jsonrpc: "2.0",
      id: 2,
      result: {
        content: [
          {
            type: "text",
            text: "Your order #1042 left our warehouse yesterday; it should arrive by Thursday.",
          },
        ],
        structuredContent: {
          thread_id: "ticket-42",
          usage: { input_tokens: 42, output_tokens: 17, estimated: false, cost: 0.0000165 },
        },
      },
    },
  },
  refused: {
    summary: "A chat the quota refused, as the tool's error",
    value: {
      jsonrpc: "2.0",
      id: 3,
      result: {
        isError: true,
        content: [
          {
            type: "text",
            text: "Daily message limit reached for agent 'support-bot': 100 messages allowed, it resets at 2026-11-29T00:00:00Z.",
          },
        ],
      },
    },
  },
};
