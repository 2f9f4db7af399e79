/**
 * What the dashboard's request log computes with, without zod and nothing server-only
 * (docs/architecture.md): the paths a chat comes by, and the filter for every failure.
 */

export { REQUEST_VIAS, type RequestVia } from "@/db/enums";

/** The `status` filter for every request that did not end in a delivered reply (not 200). */
export const FAILED_STATUSES = "failed";
