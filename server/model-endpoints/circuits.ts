import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { log } from "@/server/observability";

/**
 * The circuits of model endpoints, kept in PostgreSQL so that every worker and instance skips an
 * endpoint one of them has seen fail `failures` times in a row. Each decision is one statement;
 * a healthy endpoint has no row, so a call that succeeds writes nothing unless it closes one.
 */

export type Circuit = { failures: number; openUntil: Date | null; probeUntil: Date | null };

export type CircuitSettings = { failures: number; openMs: number };

type Target = { base_url: string; model: string };

const keyOf = (target: Target) => `${target.model}\0${target.base_url}`;

/** The circuits of `targets` that have a row (failed lately), by `keyOf`. */
export async function readCircuits(db: Db, targets: Target[]): Promise<Map<string, Circuit>> {
  const result = await db.execute(sql`
    SELECT base_url, model, failures, open_until, probe_until FROM model_circuits
    WHERE (base_url, model) IN (${sql.join(
      targets.map((target) => sql`(${target.base_url}, ${target.model})`),
      sql`, `,
    )})`);
  const circuits = new Map<string, Circuit>();
  for (const row of rowsOf<{
    base_url: string;
    model: string;
    failures: number;
    open_until: Date | string | null;
    probe_until: Date | string | null;
  }>(result)) {
    circuits.set(keyOf(row), {
      failures: Number(row.failures),
      openUntil: row.open_until === null ? null : new Date(row.open_until),
      probeUntil: row.probe_until === null ? null : new Date(row.probe_until),
    });
  }
  return circuits;
}

export function circuitOf(circuits: Map<string, Circuit>, target: Target): Circuit | undefined {
  return circuits.get(keyOf(target));
}

/**
 * What a call may do with an endpoint now: `call` it (closed), `probe` it (open, its time
 * passed: one call at a time may try), or `skip` it until `until`.
 */
export function circuitState(
  circuit: Circuit | undefined,
  now: Date,
): { state: "call" } | { state: "probe" } | { state: "skip"; until: Date } {
  if (!circuit?.openUntil) return { state: "call" };
  if (circuit.openUntil > now) return { state: "skip", until: circuit.openUntil };
  if (circuit.probeUntil && circuit.probeUntil > now)
    return { state: "skip", until: circuit.probeUntil };
  return { state: "probe" };
}

/** Takes the probe of an open circuit whose time has passed; false when another call has it. */
export async function claimProbe(
  db: Db,
  target: Target,
  now: Date,
  forMs: number,
): Promise<boolean> {
  const result = await db.execute(sql`
    UPDATE model_circuits SET probe_until = ${new Date(now.getTime() + forMs).toISOString()}
    WHERE base_url = ${target.base_url} AND model = ${target.model}
      AND open_until <= ${now.toISOString()}
      AND (probe_until IS NULL OR probe_until <= ${now.toISOString()})
    RETURNING 1`);
  return rowsOf(result).length === 1;
}

/**
 * Counts a failure: the count starts again after a quiet cooling period, and reaching
 * `settings.failures` opens the circuit (again, for a failed probe) for `settings.openMs`.
 */
export async function recordFailure(
  db: Db,
  target: Target,
  now: Date,
  settings: CircuitSettings,
): Promise<void> {
  const at = now.toISOString();
  const forgottenBefore = new Date(now.getTime() - settings.openMs).toISOString();
  const openUntil = new Date(now.getTime() + settings.openMs).toISOString();
  await quietly("failure", () =>
    db.execute(sql`
      INSERT INTO model_circuits AS c (base_url, model, failures, last_failure_at, open_until)
      VALUES (${target.base_url}, ${target.model}, 1, ${at},
        CASE WHEN 1 >= ${settings.failures}::int THEN ${openUntil}::timestamptz END)
      ON CONFLICT (base_url, model) DO UPDATE SET
        failures = CASE WHEN c.last_failure_at < ${forgottenBefore} AND c.open_until IS NULL
          THEN 1 ELSE c.failures + 1 END,
        last_failure_at = ${at},
        open_until = CASE
          WHEN (CASE WHEN c.last_failure_at < ${forgottenBefore} AND c.open_until IS NULL
            THEN 1 ELSE c.failures + 1 END) >= ${settings.failures}::int
          THEN ${openUntil}::timestamptz ELSE c.open_until END,
        probe_until = NULL`),
  );
}

/** A success closes the circuit: the row goes, and with it the count of failures. */
export async function recordSuccess(db: Db, target: Target): Promise<void> {
  await quietly("success", () =>
    db.execute(
      sql`DELETE FROM model_circuits WHERE base_url = ${target.base_url} AND model = ${target.model}`,
    ),
  );
}

/** A circuit that cannot be written leaves the chat alone: the next call counts again. */
async function quietly(what: string, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    log.warn({ err: error }, `could not record a model endpoint's ${what} in its circuit`);
  }
}
