// Per-client rate-limit windows kept in the database (nonces use them).
export { countRequest, purgeOldWindows } from "./windows";
