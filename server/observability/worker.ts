/**
 * Which of an instance's web workers this process is. The primary (server/instance/primary.ts)
 * gives each worker its slot; log lines carry it, and slot 1 does the instance's work once.
 * Imported by the server entry, which Node.js runs unbundled: no imports.
 */

/** The environment variable the primary gives each web worker: its slot, 1 to WEB_CONCURRENCY. */
export const WORKER_SLOT_VARIABLE = "AGENT_SERVICE_WORKER";

/**
 * This process's slot among the instance's web workers, or undefined when it is the only
 * process (WEB_CONCURRENCY=1, the embedded database, `npm run worker`).
 */
export function workerSlot(): number | undefined {
  const slot = Number(process.env[WORKER_SLOT_VARIABLE]);
  return Number.isInteger(slot) && slot > 0 ? slot : undefined;
}

/**
 * Whether this process does the instance's once-per-instance work (the scheduler and the
 * housekeeping): the only process, or the worker in slot 1 (a restarted one takes the slot).
 */
export function runsInstanceWork(): boolean {
  const slot = workerSlot();
  return slot === undefined || slot === 1;
}
