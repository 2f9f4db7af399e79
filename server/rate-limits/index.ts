/**
 * Per-client rate-limit windows kept in PostgreSQL (nonces use them). This index is the folder's
 * public surface: import the folder, not its files (docs/architecture.md).
 */
export { countRequest, purgeOldWindows } from "./windows";
