import type { HostRule } from "@/server/kit/allowed-hosts";
import { urlProblem as outgoingProblem } from "@/server/kit/outgoing";

/**
 * Where a webhook may be sent: the outgoing rule (kit/outgoing.ts) with WEBHOOK_ALLOWED_HOSTS,
 * judged from the URL when an endpoint is saved, and on the addresses connected to when it is
 * sent (attempt.ts).
 */
export const SETTING = "WEBHOOK_ALLOWED_HOSTS";

/** Why an endpoint may not have this URL, from the URL alone; undefined when it may. */
export function urlProblem(url: URL, rules: readonly HostRule[]): string | undefined {
  return outgoingProblem(url, rules, SETTING);
}
