/** Real messages of `@a2a-js/sdk`'s client and the service's answers. */

export const sendMessage = {
  send: {
    summary: "A message, answered when the task ends",
    value: {
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: {
        message: {
          messageId: "9f2b6c1e-5d8a-4f3b-9c7e-1a2b3c4d5e6f",
          role: "ROLE_USER",
          parts: [{ text: "Where is my order #1042?", mediaType: "text/plain" }],
          contextId: "ticket-42",
        },
      },
    },
  },
  cancel: {
    summary: "A task cancelled",
    value: { jsonrpc: "2.0", id: 2, method: "CancelTask", params: { id: "3c8d…" } },
  },
};

export const task = {
  completed: {
    summary: "The task, completed, with the reply as its artifact",
    value: {
      jsonrpc: "2.0",
      id: 1,
      result: {
        task: {
          id: "3c8d2f4e-6a1b-4c9d-8e7f-0a1b2c3d4e5f",
          contextId: "ticket-42",
          status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-11-29T09:14:05.120Z" },
          artifacts: [
            {
              artifactId: "7e1f…",
              name: "reply",
              parts: [{ text: "Your order left yesterday.", mediaType: "text/plain" }],
            },
          ],
          history: [],
        },
      },
    },
  },
};
