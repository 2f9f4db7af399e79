import { randomUUID } from "node:crypto";

/** An A2A SendMessage of `text` in a fresh context (a thread of its own), as the bench sends it. */
export const a2aSendMessage = (text: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "SendMessage",
    params: {
      message: {
        messageId: randomUUID(),
        role: "ROLE_USER",
        parts: [{ text }],
        contextId: `a-${randomUUID()}`,
      },
    },
  });
