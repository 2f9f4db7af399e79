// The request log's values for the dashboard, without zod or anything server-only.

export { REQUEST_VIAS, type RequestVia } from "@/db/enums";

/** The `status` filter for every request that did not end in a delivered reply (not 200). */
export const FAILED_STATUSES = "failed";
