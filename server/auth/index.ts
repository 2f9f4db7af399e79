// Who is asking: the admin key and its derived keys, dashboard sessions (SIWE, the key, OIDC),
// the credential throttle.

export type { AdminKey, AuthKeys } from "./admin-key";
export { authKeys, bearerToken, callerHashKey, resolveAdminKey } from "./admin-key";
export { finishOidcSignIn, type OidcContext, startOidcSignIn } from "./oidc";
export { purgeExpiredAttempts } from "./oidc-attempts";
export { type OidcIdentity, type OidcRole, type OidcRoleRule, roleByRules } from "./oidc-role";
export type { AdminSession, Session } from "./session";
export {
  clearedSessionCookie,
  endAllSessions,
  endSession,
  isAdmin,
  purgeExpiredSessions,
  readSession,
  SESSION_COOKIE,
} from "./session";
export type { SignedIn } from "./sign-in";
export { signInWithKey, signInWithWallet } from "./sign-in";
export { blockedFor, purgeOldFailures, recordFailure, tooManyAttempts } from "./throttle";
export {
  DASHBOARD_HOME,
  dashboardPathOrNull,
  signInPath,
  ssoErrorSentence,
  ssoStartPath,
} from "./view";
