import { z } from "zod";
import type { Db } from "@/db/client";
import { isDraining } from "@/server/frame/shutdown";
import { checkDatabase } from "./health";

/**
 * The orchestrator's probes. Live whatever the database does: a failing database is no reason to
 * restart the process. Ready: the database answers in time and the process is not draining.
 */
export const probeSchema = z
  .object({
    status: z.enum(["live", "ready", "not_ready"]),
    reason: z.string().optional().meta({ description: "Why it is not ready, in a sentence." }),
  })
  .meta({ id: "Probe" });

export type Probe = z.infer<typeof probeSchema>;

export async function readiness(db: Db | undefined): Promise<Probe> {
  if (isDraining())
    return { status: "not_ready", reason: "This instance is shutting down (SIGTERM)." };
  if (!db) return { status: "not_ready", reason: "The database has not opened yet." };
  const database = await checkDatabase(db);
  return database === "ok"
    ? { status: "ready" }
    : { status: "not_ready", reason: `The database is not answering (${database}).` };
}
