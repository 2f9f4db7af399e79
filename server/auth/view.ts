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
