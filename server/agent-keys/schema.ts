import { z } from "zod";
import { lookupAidSchema } from "@/server/kit/agent-id";
import { instant } from "@/server/kit/bounds";
import { isoDateTime } from "@/server/kit/iso-date-time";
import { NUL_RULE, withoutNul } from "@/server/kit/text";

const KEY_RPM_MAX = 1_000_000;

export const createKeyInputSchema = z.strictObject({
  aid: lookupAidSchema,
  name: z
    .string({ error: "is required: a name for the key (who or what uses it), 1 to 100 characters" })
    .trim()
    .min(1, "is required: a name for the key (who or what uses it), 1 to 100 characters")
    .max(100, "must be at most 100 characters")
    .refine(withoutNul, NUL_RULE),
  expires_at: instant().nullable().optional().meta({
    description:
      "From this instant on the key is refused (401 invalid_key, saying it expired), as a revoked one is; left out or null, it never expires. It must lie ahead.",
  }),
  rate_limit_rpm: z
    .int({ error: `must be a whole number of chats a minute from 1 to ${KEY_RPM_MAX}, or null` })
    .min(1, `must be a whole number of chats a minute from 1 to ${KEY_RPM_MAX}, or null`)
    .max(KEY_RPM_MAX, `must be a whole number of chats a minute from 1 to ${KEY_RPM_MAX}, or null`)
    .nullable()
    .optional()
    .meta({
      description:
        "Chats a minute this key may send, instead of the agent's rate_limit_rpm (higher or lower); left out or null, the agent's applies.",
    }),
});

export const agentKeySchema = z
  .object({
    id: z.string().meta({ description: "The key's public id; its threads' caller is `key:<id>`." }),
    name: z.string(),
    created_at: isoDateTime,
    last_used_at: isoDateTime.nullable().meta({
      description: "The last chat with this key, to the minute; null if it was never used.",
    }),
    expires_at: isoDateTime.nullable().meta({
      description: "When the key stops working; null = never.",
    }),
    expired: z.boolean().meta({ description: "Whether expires_at has passed: it is refused." }),
    rate_limit_rpm: z.int().nullable().meta({
      description: "Its own chats a minute; null = the agent's rate_limit_rpm.",
    }),
  })
  .meta({ id: "AgentKey" });

export const createdKeySchema = agentKeySchema
  .extend({
    key: z.string().meta({
      description:
        "The key itself, `ak_<id>_<secret>`: shown this once, and stored only as a hash. Send it as `Authorization: Bearer <key>` on GET /{aid}/chat.",
    }),
  })
  .meta({ id: "CreatedAgentKey" });

export const listKeysInputSchema = z.strictObject({ aid: lookupAidSchema });

export const listKeysOutputSchema = z
  .object({ keys: z.array(agentKeySchema) })
  .meta({ id: "AgentKeyList" });

const KEY_ID_RULE = "must be a key's id (as the key listing gives it), 1 to 100 characters";

/** One key of one agent, as a path names it: /agents/{aid}/keys/{id}. */
export const agentKeyRefSchema = z.strictObject({
  aid: lookupAidSchema,
  id: z
    .string({ error: KEY_ID_RULE })
    .min(1, KEY_ID_RULE)
    .max(100, KEY_ID_RULE)
    .refine(withoutNul, NUL_RULE)
    .meta({ description: "The key's id, as the key listing gives it." }),
});
