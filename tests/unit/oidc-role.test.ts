import { describe, expect, it } from "vitest";
import { type OidcIdentity, roleByRules } from "@/server/auth";
import { parseConfig } from "@/server/frame/config";
import { parseRoleRules } from "@/server/kit/oidc-rules";

/** Who may sign in with SSO, and as what: OIDC_ROLE_RULES read, and applied to identities. */

const identity = (over: Partial<OidcIdentity>): OidcIdentity => ({
  issuer: "https://id.example.com",
  subject: "s1",
  email: "ann@example.com",
  emailVerified: true,
  groups: [],
  ...over,
});

const { rules } = parseRoleRules(
  "domain:Example.com=viewer, group:platform=operator,group:Owners=owner",
);

describe("OIDC role rules", () => {
  it("gives a verified email of a domain rule its role, the domain in any case", () => {
    expect(roleByRules(identity({}), rules)).toBe("viewer");
    expect(roleByRules(identity({ email: "Ann@EXAMPLE.COM" }), rules)).toBe("viewer");
  });

  it("refuses an unverified email, a subdomain, and a look-alike domain", () => {
    expect(roleByRules(identity({ emailVerified: false }), rules)).toBeNull();
    expect(roleByRules(identity({ email: "ann@eu.example.com" }), rules)).toBeNull();
    expect(roleByRules(identity({ email: "ann@notexample.com" }), rules)).toBeNull();
    expect(roleByRules(identity({ email: "ann@example.com.evil.test" }), rules)).toBeNull();
    expect(roleByRules(identity({ email: null }), rules)).toBeNull();
  });

  it("matches groups exactly, verified email or not, and the highest role wins", () => {
    expect(roleByRules(identity({ emailVerified: false, groups: ["platform"] }), rules)).toBe(
      "operator",
    );
    expect(roleByRules(identity({ groups: ["Platform"], email: null }), rules)).toBeNull();
    expect(roleByRules(identity({ groups: ["platform", "Owners"] }), rules)).toBe("owner");
  });

  it("allows nobody without rules", () => {
    expect(roleByRules(identity({ groups: ["platform"] }), [])).toBeNull();
  });

  it("names every item it cannot read", () => {
    expect(
      parseRoleRules("domain:example.com=admin,email:a@b.c=owner,domain:x=viewer").problems,
    ).toHaveLength(3);
    expect(parseRoleRules(" , ").rules).toEqual([]);
  });

  it("is configured with all three OIDC variables or none, with valid rules", () => {
    const oidc = {
      OIDC_ISSUER: "https://id.example.com",
      OIDC_CLIENT_ID: "agent-service",
      OIDC_CLIENT_SECRET: "secret",
      OIDC_ROLE_RULES: "group:platform=operator",
    };
    expect(parseConfig(oidc).oidc).toMatchObject({
      issuer: "https://id.example.com",
      scopes: "openid email profile",
      roleRules: [{ kind: "group", value: "platform", role: "operator" }],
    });
    expect(parseConfig({}).oidc).toBeUndefined();
    expect(() => parseConfig({ OIDC_ISSUER: oidc.OIDC_ISSUER })).toThrow(/OIDC_CLIENT_SECRET/);
    expect(() => parseConfig({ ...oidc, OIDC_ISSUER: "http://id.example.com" })).toThrow(
      /OIDC_ISSUER: must be an https URL/,
    );
    expect(() => parseConfig({ ...oidc, OIDC_ROLE_RULES: "group:x=root" })).toThrow(
      /OIDC_ROLE_RULES/,
    );
  });
});
