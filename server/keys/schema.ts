import { z } from "zod";
import { lookupAidSchema } from "@/server/agent-id";
import { isoDateTime } from "@/server/iso-date-time";
import { NUL_RULE, withoutNul } from "@/server/text";

/** Agent key schemas: the procedures, the REST handlers, OpenAPI and the dashboard use these. */

export const createKeyInputSchema = z.strictObject({
  aid: lookupAidSchema,
  name: z
    .string({ error: "is required: a name for the key (who or what uses it), 1 to 100 characters" })
    .trim()
    .min(1, "is required: a name for the key (who or what uses it), 1 to 100 characters")
    .max(100, "must be at most 100 characters")
    .refine(withoutNul, NUL_RULE),
});

export const agentKeySchema = z
  .object({
    id: z.string().meta({ description: "The key's public id; its threads' caller is `key:<id>`." }),
    name: z.string(),
    created_at: isoDateTime,
    last_used_at: isoDateTime.nullable().meta({
      description: "The last chat with this key, to the minute; null if it was never used.",
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

export const revokeKeyInputSchema = z.strictObject({
  aid: lookupAidSchema,
  id: z
    .string({ error: KEY_ID_RULE })
    .min(1, KEY_ID_RULE)
    .max(100, KEY_ID_RULE)
    .refine(withoutNul, NUL_RULE)
    .meta({ description: "The key's id, as the key listing gives it." }),
});
