import { isDatabaseUnavailable } from "@/db/failures";
import { AppError, type ProblemCode } from "@/server/errors";
import { type ChatOutcome, countChat, metrics } from "@/server/observability";

/** What became of a chat, for the metrics: `ok`, or why it failed. */
const OUTCOMES: Partial<Record<ProblemCode, ChatOutcome>> = {
  quota_exceeded: "quota",
  rate_limited: "rate",
  agent_not_found: "not_found",
  agent_paused: "paused",
  key_required: "unauthorized",
  invalid_key: "unauthorized",
  provider_error: "provider_error",
  provider_timeout: "timeout",
  service_unavailable: "overload",
  client_closed_request: "client_closed",
  database_unavailable: "unavailable",
};

/** Counts a chat's outcome (and, for a refusal by a limit, which limit). */
export function recordChat(aid: string, error?: unknown): void {
  if (error === undefined) {
    countChat("ok", aid);
    return;
  }
  // A database failure reaches here as the driver's error; the client gets it as a 503.
  const code =
    error instanceof AppError
      ? error.code
      : isDatabaseUnavailable(error)
        ? "database_unavailable"
        : undefined;
  const outcome = (code && OUTCOMES[code]) || "error";
  countChat(outcome, aid);
  if (outcome === "quota" && error instanceof AppError)
    metrics.refusals.inc({ kind: "quota", limit: String(error.extras.limit ?? "unknown") });
  if (outcome === "rate") metrics.refusals.inc({ kind: "rate", limit: "rate_limit_rpm" });
}
