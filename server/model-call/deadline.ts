/** The model call's time bound, joined with the client's own signal. */
export type Deadline = {
  signal: AbortSignal;
  timedOut(): boolean;
  clientGone(): boolean;
  /**
   * Ends the call: stops the timer, lets go of the client's signal, and aborts anything of the
   * call still open (nothing should be; this makes sure no upstream request outlives it).
   */
  clear(): void;
};

/**
 * The model call's deadline: `timeoutMs`, or sooner if the client goes away. A plain timer that
 * is cleared when the call ends, not AbortSignal.timeout: a pending timeout holds the async
 * context it was made in, and with it the whole finished request (Next.js's request store, the
 * ServerResponse), which Node 20 frees only after several collections. Under sustained chat
 * load that garbage outran the collector: resident memory climbed to 670 MB with a live heap of
 * 47 MB (nodejs/node#53408, #62367). The client's signal is joined by a listener removed at the
 * end rather than AbortSignal.any, for the same reason: nothing outlives the call.
 */
/**
 * The reason a finished call's signal is aborted with: one for every call, since making a
 * DOMException captures a stack (about 1% of a chat's CPU when made per call).
 */
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
