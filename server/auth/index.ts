/**
 * Who is asking: the admin key (and the keys derived from it), dashboard sessions (cookies, sign-
 * in with a wallet or the key, sign-out), and the throttle on wrong credentials. This index is
 * the folder's public surface: import the folder, not its files (docs/architecture.md).
 */

export type { AdminKey, AuthKeys } from "./admin-key";
export { authKeys, bearerToken, callerHashKey, resolveAdminKey } from "./admin-key";
export type { Session } from "./session";
export {
  clearedSessionCookie,
  endAllSessions,
  endSession,
  purgeExpiredSessions,
  readSession,
  SESSION_COOKIE,
} from "./session";
export type { SignedIn } from "./sign-in";
export { signInWithKey, signInWithWallet } from "./sign-in";
export { blockedFor, purgeOldFailures, recordFailure, tooManyAttempts } from "./throttle";
export { DASHBOARD_HOME, dashboardPathOrNull, signInPath } from "./view";
