// The outbox's limits, free of imports, so that the dashboard can show them.

/** The most an event's body may take in the outbox, in bytes; a larger one is written trimmed. */
export const EVENT_BODY_MAX_BYTES = 1024 * 1024;

/** The largest member of a trimmed event's `data` that is kept, in bytes of its JSON text. */
export const TRIMMED_MEMBER_MAX_BYTES = 1024;
