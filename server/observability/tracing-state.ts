/**
 * Whether this process traces, and how to stop it: on globalThis, as @opentelemetry/api keeps
 * its registrations, since the server entry and Next.js's bundle each have a copy of the modules.
 */

const ON = Symbol.for("agent-service.tracing");
const STOP = Symbol.for("agent-service.tracing.stop");
const shared = globalThis as Record<symbol, unknown>;

export const tracingOn = (): boolean => shared[ON] === true;

/** Called by the SDK's start, with what exports the spans still batched and stops it. */
export function markTracingOn(stop: () => Promise<void>): void {
  shared[ON] = true;
  shared[STOP] = stop;
}

/** At shutdown: the batched spans exported (bounded by the exporter's timeout), then no more. */
export async function stopTracing(): Promise<void> {
  const stop = shared[STOP] as (() => Promise<void>) | undefined;
  shared[ON] = false;
  shared[STOP] = undefined;
  await stop?.().catch(() => {});
}
