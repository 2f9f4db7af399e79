import type { EmbeddedDatabaseError } from "./client";
import type { DataDirLockedError } from "./pglite-lock";

// What a database failure is, read from the error's and its causes' codes (not classes: Next.js
// may load db/ in more than one chunk, and drizzle wraps the driver's error).

// Type-only imports (checked by the compiler): this module loads no database driver.
const DATA_DIR_LOCKED: DataDirLockedError["code"] = "DATA_DIR_LOCKED";
const EMBEDDED_DATABASE_UNAVAILABLE: EmbeddedDatabaseError["code"] =
  "EMBEDDED_DATABASE_UNAVAILABLE";

/** Why PGlite could not be opened, if that is the failure: a 503, not a 500. */
export function embeddedDatabaseFailure(error: unknown): "locked" | "unopenable" | undefined {
  const codes = codesOf(error);
  if (codes.includes(DATA_DIR_LOCKED)) return "locked";
  if (codes.includes(EMBEDDED_DATABASE_UNAVAILABLE)) return "unopenable";
  return undefined;
}

/** The string `code`s of `error` and of its causes, outermost first (at most five deep). */
export function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    e = (e as { cause?: unknown }).cause;
  }
  return codes;
}

/**
 * A data exception, a broken constraint, a deadlock, a serialization failure: what may be one
 * row's own doing, so that a statement of several rows that failed so is tried again row by row.
 */
export function mayBeOneRowsDoing(error: unknown): boolean {
  return codesOf(error).some((code) => ONE_ROWS_DOING.test(code));
}

const ONE_ROWS_DOING = /^(22|23)...$|^40P01$|^40001$/;

export const TOO_MANY_CONNECTIONS = "53300";

// postgres.js connection failures and the server-side codes of a database that is going away.
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  TOO_MANY_CONNECTIONS, // every connection slot of the server is taken, for now
  "08000",
  "08003",
  "08006",
  "08001",
  "08004",
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (embeddedDatabaseFailure(error)) return true;
  return codesOf(error).some((code) => UNAVAILABLE_CODES.has(code));
}

// PostgreSQL's "character not in repertoire" and "untranslatable character": text no schema
// should have let through (the schemas refuse NUL), answered as the client's error all the same.
const UNSTORABLE_TEXT_CODES = new Set(["22021", "22P05"]);

export function isUnstorableText(error: unknown): boolean {
  // The driver's error is the cause of drizzle's "Failed query" error, not the error itself.
  return codesOf(error).some((code) => UNSTORABLE_TEXT_CODES.has(code));
}

/** PostgreSQL's foreign_key_violation: the row referred to was deleted meanwhile. */
export function isMissingReference(error: unknown): boolean {
  return codesOf(error).includes("23503");
}
