/** The model call's time bound, joined with the client's own signal. */
export type Deadline = {
  signal: AbortSignal;
  timedOut(): boolean;
  clientGone(): boolean;
  /** Ends the call: stops the timer, lets go of the client's signal, aborts what is still open. */
  clear(): void;
};

// A plain timer cleared when the call ends, not AbortSignal.timeout: a pending timeout holds the
// async context it was made in, and with it the whole finished request, which under sustained
// load outran the collector (nodejs/node#53408). The client's signal is joined by a listener
// removed at the end rather than AbortSignal.any, for the same reason.
/** One reason for every finished call: making a DOMException captures a stack. */
const CALL_OVER = new DOMException("The model call is over.", "AbortError");

export function startDeadline(timeoutMs: number, clientSignal: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException("The model call timed out.", "TimeoutError"));
  }, timeoutMs);
  // Like AbortSignal.timeout, it never keeps a stopping process alive.
  timer.unref();
  const onClientGone = () => controller.abort(clientSignal?.reason);
  if (clientSignal?.aborted) onClientGone();
  else clientSignal?.addEventListener("abort", onClientGone, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    clientGone: () => clientSignal?.aborted ?? false,
    clear: () => {
      clearTimeout(timer);
      clientSignal?.removeEventListener("abort", onClientGone);
      controller.abort(CALL_OVER);
    },
  };
}
