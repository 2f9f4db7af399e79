import { createHash } from "node:crypto";
import { z } from "zod";
import { lookupAidSchema } from "@/server/kit/agent-id";
import { CHAT_ID_PATTERN } from "@/server/threads/schema";

/** A JSON-RPC message of A2A: only the aid is checked here; the A2A SDK's handler reads the rest. */
export const a2aMessageSchema = z
  .looseObject({
    aid: lookupAidSchema,
    jsonrpc: z.unknown().optional().meta({ description: "`2.0`." }),
    method: z.unknown().optional().meta({
      description: "SendMessage, SendStreamingMessage, GetTask or CancelTask.",
    }),
    id: z.unknown().optional(),
    params: z.unknown().optional(),
  })
  .meta({ id: "A2aMessage" });

export const agentCardInputSchema = z.strictObject({ aid: lookupAidSchema });

/**
 * An A2A context is a thread of the caller's: `a2a:<context id>`, or, for an id a thread name
 * cannot hold, `a2a:h.<its SHA-256>`.
 */
export function threadOfContext(contextId: string): string {
  const thread = `a2a:${contextId}`;
  if (CHAT_ID_PATTERN.test(thread)) return thread;
  return `a2a:h.${createHash("sha256").update(contextId).digest("hex")}`;
}
