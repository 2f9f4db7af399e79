import { z } from "zod";
import { lookupAidSchema } from "@/server/kit/agent-id";
import { isoDateTime } from "@/server/kit/iso-date-time";
import { usageSchema } from "@/server/model-call/schema";
import { pageParams } from "@/server/pagination/schema";
import { toolCallsSchema } from "@/server/tools/schema";

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
    usage: usageSchema
      .nullable()
      .meta({ description: "The tokens of a succeeded run's model call." }),
    tool_calls: toolCallsSchema.meta({
      description:
        "The tool calls of a succeeded run, with their results; empty when it made none.",
    }),
  })
  .meta({ id: "AutonomousRun" });

export type Run = z.infer<typeof runSchema>;

export const listRunsInputSchema = z.strictObject({
  aid: lookupAidSchema,
  ...pageParams(500, 50),
});

export const listRunsOutputSchema = z.object({
  runs: z.array(runSchema),
  next_cursor: z.string().nullable(),
});

export const runSummarySchema = z.object({
  aid: z.string(),
  autonomous_enabled: z.boolean(),
  autonomous_minutes: z.int(),
  autonomous_cron: z.string().nullable(),
  autonomous_timezone: z.string(),
  next_run_at: isoDateTime.nullable(),
  last_run: runSchema.nullable(),
  counts: z.object({ running: z.int(), succeeded: z.int(), failed: z.int(), skipped: z.int() }),
});
