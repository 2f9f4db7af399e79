import { z } from "zod";
import { AID_MAX_LENGTH } from "@/server/agents/schema";

const isoDateTime = z.iso.datetime({ offset: true });
const anyAid = z
  .string()
  .min(1)
  .max(AID_MAX_LENGTH * 4);

export const runSchema = z
  .object({
    id: z.int(),
    aid: z.string(),
    trigger: z.enum(["schedule", "manual"]),
    due_at: isoDateTime,
    started_at: isoDateTime,
    finished_at: isoDateTime.nullable(),
    outcome: z.enum(["running", "succeeded", "failed", "skipped"]),
    reply: z.string().nullable(),
    error: z.string().nullable().meta({ description: "Why it failed or was skipped." }),
  })
  .meta({ id: "AutonomousRun" });

export type Run = z.infer<typeof runSchema>;

export const aidInputSchema = z.strictObject({ aid: anyAid });

export const listRunsInputSchema = z.strictObject({
  aid: anyAid,
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(100).optional(),
});

export const listRunsOutputSchema = z.object({
  /** Newest first. */
  runs: z.array(runSchema),
  next_cursor: z.string().nullable(),
});

export const runSummarySchema = z.object({
  aid: z.string(),
  autonomous_enabled: z.boolean(),
  autonomous_minutes: z.int(),
  next_run_at: isoDateTime.nullable(),
  last_run: runSchema.nullable(),
  counts: z.object({ running: z.int(), succeeded: z.int(), failed: z.int(), skipped: z.int() }),
});
