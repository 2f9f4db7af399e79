/**
 * Whether this process has started its services (configuration, admin key, database opened
 * and migrated: server/frame/services.ts). The server entry (server/instance/serve.ts, run by Node.js
 * itself) reads it to answer /health and the probes at once while a start is under way, instead
 * of holding them until it ends; the services, in Next.js's bundle, set it. Each loads its own
 * copy of this file, so the state lives on globalThis.
 */

/** `starting` until a start ends (and again while a failed one is tried again). */
export type StartState = "starting" | "started" | "failed";

const KEY = Symbol.for("agent-service.start-state");
const shared = globalThis as unknown as Record<symbol, StartState | undefined>;

export function markStart(state: StartState): void {
  shared[KEY] = state;
}

/** A process that has not begun its start yet is starting too. */
export function startState(): StartState {
  return shared[KEY] ?? "starting";
}

/** What /health and /health/ready say while the process is starting. */
export const STARTING_REASON =
  "Agent Service is starting: it is opening the database and applying its migrations. Ask again in a few seconds.";
