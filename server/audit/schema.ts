import { z } from "zod";
import { INSTANT_RANGE, instant } from "@/server/kit/bounds";
import { LONE_SURROGATE_RULE, NUL_RULE, withoutLoneSurrogate, withoutNul } from "@/server/kit/text";
import { pageParams } from "@/server/pagination/schema";

// Shared by the procedures, REST, OpenAPI and the dashboard: nothing here may import server-only
// code.

export const auditEntrySchema = z
  .object({
    id: z.int(),
    at: z.iso.datetime(),
    actor: z.string().meta({
      description:
        "Who: `admin:<id>` (a person of the admins list, through their key or a dashboard session), `admin-key` (ADMIN_API_KEY), `wallet:0x…` (an ADMIN_ADDRESSES wallet in no admins entry), `oidc:<email>` (signed in with SSO by a rule, in no admins entry), `anonymous` (a refused sign-in), or `system` (the service, e.g. MODEL_PRICES at start).",
    }),
    actor_via: z.enum(["key", "session", "system"]),
    action: z.string().meta({
      description: "What: agent.created, agent.updated, agent.deleted, agent_key.created, …",
    }),
    target: z
      .string()
      .meta({ description: "What it was done to: `agent:<aid>`, `webhook:<id>`, …" }),
    before: z.unknown().meta({
      description: "The thing before the change (null when created); secrets never, only hints.",
    }),
    after: z.unknown().meta({
      description: "The thing after the change (null when deleted); secrets never, only hints.",
    }),
    request_id: z
      .string()
      .nullable()
      .meta({ description: "The X-Request-Id of the change's answer." }),
    client: z.string().nullable().meta({
      description:
        "The keyed hash of the client's address (as throttles know it), never the address itself.",
    }),
  })
  .meta({ id: "AuditEntry" });

export type AuditEntry = z.infer<typeof auditEntrySchema>;

const filter = (what: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .refine(withoutNul, NUL_RULE)
    .refine(withoutLoneSurrogate, LONE_SURROGATE_RULE)
    .optional()
    .meta({ description: what });

export const listAuditInputSchema = z.strictObject({
  actor: filter("Only this actor's changes."),
  target: filter("Only changes of this target, e.g. `agent:support-bot`."),
  action: filter("Only this action, e.g. `agent.updated`."),
  since: instant()
    .optional()
    .meta({ description: `At or after this instant (${INSTANT_RANGE}).` }),
  until: instant()
    .optional()
    .meta({ description: `Before this instant (${INSTANT_RANGE}).` }),
  ...pageParams(500, 50),
});

export const listAuditOutputSchema = z.object({
  entries: z.array(auditEntrySchema).meta({ description: "The newest first." }),
  next_cursor: z.string().nullable(),
});
