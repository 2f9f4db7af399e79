// Who may sign in to the dashboard with OIDC, and as what: decided here alone, from the identity
// the provider vouched for. Nothing here reads the database or the network, so that the decision
// is tested without a provider. The rules themselves are parsed in server/kit/oidc-rules.ts.

import { OIDC_ROLES, type OidcRole, type OidcRoleRule } from "@/server/kit/oidc-rules";

export type { OidcRole, OidcRoleRule };

/** What the provider's id token (and user info) said of the person signing in. */
export type OidcIdentity = {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  groups: string[];
};

/**
 * The role an identity signs in with, or null (refused: "not allowed"). Rules only for now; the
 * admins list (verified email) will be consulted first. A domain rule needs a verified email (an
 * unverified one is whatever the person typed at the provider); the highest matching role wins.
 */
export function roleByRules(
  identity: OidcIdentity,
  rules: readonly OidcRoleRule[],
): OidcRole | null {
  const domain =
    identity.emailVerified && identity.email
      ? identity.email.slice(identity.email.lastIndexOf("@") + 1).toLowerCase()
      : undefined;
  let best: OidcRole | null = null;
  for (const rule of rules) {
    const matches =
      rule.kind === "domain"
        ? domain !== undefined && domain === rule.value
        : identity.groups.includes(rule.value);
    if (matches && (best === null || rank(rule.role) > rank(best))) best = rule.role;
  }
  return best;
}

const rank = (role: OidcRole) => OIDC_ROLES.indexOf(role);
