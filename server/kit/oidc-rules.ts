// OIDC_ROLE_RULES: who may sign in to the dashboard with OIDC, and with which role. Parsed by
// the configuration at start-up (server/frame/config.ts) and read by server/auth/oidc-role.ts;
// here, with no imports, so that both may use it.

export const OIDC_ROLES = ["viewer", "operator", "owner"] as const;
export type OidcRole = (typeof OIDC_ROLES)[number];

/** One rule of OIDC_ROLE_RULES: `domain:example.com=viewer` or `group:platform=operator`. */
export type OidcRoleRule = { kind: "domain" | "group"; value: string; role: OidcRole };

/**
 * OIDC_ROLE_RULES as rules, or the problems of its items (for the configuration's error).
 * Domains are compared in lower case; group names exactly, as providers send them.
 */
export function parseRoleRules(text: string): { rules: OidcRoleRule[]; problems: string[] } {
  const rules: OidcRoleRule[] = [];
  const problems: string[] = [];
  for (const item of text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const match = /^(domain|group):([^=]+)=(\w+)$/.exec(item);
    const role = match?.[3] as OidcRole | undefined;
    if (!match || !role || !OIDC_ROLES.includes(role)) {
      problems.push(
        `'${item}' is not a rule like domain:example.com=viewer or group:platform=operator (roles: ${OIDC_ROLES.join(", ")})`,
      );
      continue;
    }
    const kind = match[1] as OidcRoleRule["kind"];
    const value = (match[2] as string).trim();
    if (kind === "domain" && !/^[a-z0-9.-]+\.[a-z0-9-]+$/i.test(value)) {
      problems.push(`'${item}': '${value}' is not a domain name`);
      continue;
    }
    rules.push({ kind, value: kind === "domain" ? value.toLowerCase() : value, role });
  }
  return { rules, problems };
}
