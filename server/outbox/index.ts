// The webhook outbox: events written as delivery rows in the transaction of the change they report.

export { emitEvent, eventBodySql, fanOutSql, NEW_WEBHOOK_ID, subscribed } from "./outbox";
export { EVENT_BODY_MAX_BYTES, TRIMMED_MEMBER_MAX_BYTES } from "./view";
