// The audit log: who changed what, recorded in each change's own transaction.
export { auditCsv } from "./csv";
export { listAudit, purgeOldAudit } from "./list";
export { type AuditChange, type AuditSource, recordChange } from "./record";
export * from "./schema";
