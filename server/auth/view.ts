// Where signing in leads: back to the dashboard page that sent the user there, and only to such a
// page, never another site's address, which would make the sign-in page an open redirect.

export const DASHBOARD_HOME = "/dashboard";

/** A base no real origin has, to read a path with the URL parser as the browser will. */
const HERE = "http://here.invalid";

/**
 * `next` as a dashboard path of this origin (with its query and fragment), or null: not a path
 * (a URL, `//host`, `/\host`, which browsers read as another host), a control character, or a
 * path that is not the dashboard's once its dot segments are resolved (`/dashboard/../api`).
 */
export function dashboardPathOrNull(next: string | null | undefined): string | null {
  if (typeof next !== "string" || next.length > 2000) return null;
  if (!next.startsWith("/") || next.startsWith("//") || next.includes("\\")) return null;
  if ([...next].some((character) => character < " " || character === "\u007f")) return null;
  let url: URL;
  try {
    url = new URL(next, HERE);
  } catch {
    return null;
  }
  if (url.origin !== HERE) return null;
  if (url.pathname !== DASHBOARD_HOME && !url.pathname.startsWith(`${DASHBOARD_HOME}/`))
    return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The sign-in page's address for someone on `from`; `ended` says their session ended. */
export function signInPath(from: string | null | undefined, ended = false): string {
  const next = dashboardPathOrNull(from);
  const params = new URLSearchParams();
  if (ended) params.set("ended", "1");
  if (next && next !== DASHBOARD_HOME) params.set("next", next);
  const query = params.toString();
  return query ? `/login?${query}` : "/login";
}

/** The address of Sign in with SSO (server/auth/oidc.ts) for someone going to `next`. */
export function ssoStartPath(next: string | null | undefined): string {
  const path = dashboardPathOrNull(next);
  return path && path !== DASHBOARD_HOME
    ? `/auth/oidc/start?${new URLSearchParams({ next: path })}`
    : "/auth/oidc/start";
}

/** An email address as the sign-in page may repeat it: short, one `@`, no spaces. */
const EMAIL = /^[^\s@<>]{1,64}@[^\s@<>]{1,190}$/;

/**
 * The sentence the sign-in page shows for a refused SSO sign-in (`/login?error=<code>`, from
 * server/auth/oidc.ts); undefined for a code it does not know. The provider's own words are never
 * shown: only the service's.
 */
export function ssoErrorSentence(code: string | undefined, email?: string): string | undefined {
  switch (code) {
    case "sso_not_allowed":
      return email && EMAIL.test(email)
        ? `Your identity provider account (${email}) is not allowed to sign in here.`
        : "Your identity provider account is not allowed to sign in here.";
    case "sso_expired":
      return "That sign-in link was already used or has expired. Start again with Sign in with SSO.";
    case "sso_browser":
      return "That sign-in was started in another browser or tab, or its cookie is gone. Start again from this page.";
    case "sso_refused":
      return "The identity provider did not sign you in (cancelled or denied there).";
    case "sso_failed":
      return "The identity provider's answer could not be verified, so nobody was signed in. Try again, or ask an admin to check the server log.";
    case "sso_unavailable":
      return "The identity provider cannot be reached right now; try again in a minute.";
    case "too_many_attempts":
      return "Too many failed sign-ins from your address; wait a few minutes and try again.";
    default:
      return undefined;
  }
}
