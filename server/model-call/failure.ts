import { AppError } from "@/server/frame/errors";
import { isConnectionFailure, isProviderHttpError, isProviderReplyError } from "@/server/providers";
import type { Deadline } from "./deadline";
import type { ModelSlots } from "./slots";

/** Says what went wrong in the client's terms; never passes the provider's text through. */
export function classifyFailure(error: unknown, deadline: Deadline, timeoutMs: number): unknown {
  if (error instanceof AppError) return error;
  if (deadline.timedOut()) {
    return new AppError(
      "provider_timeout",
      `The model provider did not answer within ${timeoutMs / 1000} s.`,
    );
  }
  if (deadline.clientGone()) {
    // Stopped on purpose (a cancel): the signal's reason says so.
    const reason = deadline.signal.reason;
    if (reason instanceof AppError) return reason;
    return new AppError(
      "client_closed_request",
      "The client closed the request before the reply was complete.",
    );
  }
  if (isProviderHttpError(error)) {
    const attempts = error.attempts > 1 ? ` after ${error.attempts} attempts` : "";
    return new AppError(
      "provider_error",
      `The model provider failed (HTTP ${error.status}${attempts}).`,
    );
  }
  if (isProviderReplyError(error) || isConnectionFailure(error)) {
    return new AppError(
      "provider_error",
      "The model provider could not be reached or sent an invalid reply.",
    );
  }
  return error;
}

/** The 503 for a call that gets no model slot: all busy, or the server shutting down. */
export function noModelSlot(slots: ModelSlots): AppError {
  const detail = slots.closing
    ? "This server is shutting down; try again in a moment."
    : `All ${slots.capacity} model slots of this server are busy; try again in a moment.`;
  return new AppError("service_unavailable", detail, { retryAfterS: 1 });
}
