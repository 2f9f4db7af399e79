/** The thread autonomous runs talk in, so each run sees the earlier ones as history. */
export const AUTONOMOUS_THREAD = "autonomous";

/**
 * The owner of the autonomous runs' thread. No chat caller can be it (callers are `admin`,
 * `key:…`, `addr:…` or `wallet:…`), so no chat reads or writes that thread.
 */
export const AGENT_CALLER = "agent";
