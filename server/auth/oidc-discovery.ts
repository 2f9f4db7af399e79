import * as client from "openid-client";
import type { OidcConfig } from "@/server/frame/config";
import { AppError } from "@/server/frame/errors";
import { log } from "@/server/observability";

/**
 * The OpenID provider as openid-client knows it: its discovery document, read once per process
 * on the first sign-in (not at start-up, so that a provider that is down stops SSO alone, never
 * the service). A failed discovery is not kept: the next sign-in tries again.
 */

/** Seconds a request to the provider may take (discovery, token, user info). */
const PROVIDER_TIMEOUT_S = 10;

let cached: { issuer: string; configuration: Promise<client.Configuration> } | undefined;

export function providerConfiguration(oidc: OidcConfig): Promise<client.Configuration> {
  if (cached?.issuer !== oidc.issuer) {
    const configuration = discover(oidc);
    cached = { issuer: oidc.issuer, configuration };
    configuration.catch(() => {
      if (cached?.configuration === configuration) cached = undefined;
    });
  }
  return cached.configuration;
}

async function discover(oidc: OidcConfig): Promise<client.Configuration> {
  try {
    // discovery() checks that the document's `issuer` is OIDC_ISSUER exactly: a provider that
    // names another issuer is refused here, before anyone is sent to it.
    return await client.discovery(
      new URL(oidc.issuer),
      oidc.clientId,
      undefined,
      // Client authentication every provider must support (OpenID Connect Core, 9).
      client.ClientSecretBasic(oidc.clientSecret),
      {
        timeout: PROVIDER_TIMEOUT_S,
        // Id tokens come from the token endpoint over TLS, where openid-client would take them
        // unsigned-checked; their signatures are checked against the provider's keys as well.
        execute: [client.enableNonRepudiationChecks],
      },
    );
  } catch (error) {
    log.warn(
      { err: error, issuer: oidc.issuer },
      "OIDC discovery failed: Sign in with SSO is unavailable until it succeeds",
    );
    throw new AppError(
      "service_unavailable",
      `The identity provider (${oidc.issuer}) could not be reached or did not describe itself as that issuer; try again later.`,
      { retryAfterS: 30 },
    );
  }
}
