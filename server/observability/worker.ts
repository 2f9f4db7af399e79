// Which of an instance's web workers this process is (its slot, given by the primary). Imported by
// the server entry, which Node.js runs unbundled: no imports.

/** The environment variable the primary gives each web worker: its slot, 1 to WEB_CONCURRENCY. */
export const WORKER_SLOT_VARIABLE = "AGENT_SERVICE_WORKER";

/** This process's slot, or undefined when it is the only process. */
export function workerSlot(): number | undefined {
  const slot = Number(process.env[WORKER_SLOT_VARIABLE]);
  return Number.isInteger(slot) && slot > 0 ? slot : undefined;
}

/** Whether this process runs the once-per-instance work: the only process, or slot 1. */
export function runsInstanceWork(): boolean {
  const slot = workerSlot();
  return slot === undefined || slot === 1;
}
