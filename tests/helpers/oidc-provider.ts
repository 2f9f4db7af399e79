import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import Provider, { type Configuration } from "oidc-provider";
import { Agent, fetch as undiciFetch } from "undici";

/**
 * A real OpenID provider for tests: oidc-provider (OpenID Certified) over https on loopback, with
 * a CA and a certificate made here by the openssl CLI. The CA's file is what the service is given
 * in NODE_EXTRA_CA_CERTS. It has one confidential client and the accounts it is given; its login
 * "page" signs in whichever account the browser names in an `x-test-account` header (no consent
 * page: the grant asked for is given). Two switches make it misbehave on purpose: `tamperIdTokens`
 * rewrites the email in the id tokens it issues (their signatures no longer match), and
 * `misnameIssuer` makes its discovery document name another issuer.
 */

export type TestAccount = { email?: string; email_verified?: boolean; groups?: string[] };

export type TestProvider = {
  issuer: string;
  caFile: string;
  clientId: string;
  clientSecret: string;
  switches: { tamperIdTokens: boolean; misnameIssuer: boolean };
  /** A browser of its own for the provider's pages: fetch with this CA and its own cookies. */
  browser(): ProviderBrowser;
  stop(): Promise<void>;
};

export type ProviderBrowser = {
  /** Follows the provider's redirects from `url` until one leaves the provider; returns it. */
  signInAt(url: string, account: string): Promise<string>;
};

/** A CA and a certificate it signed for 127.0.0.1 and localhost, in a temporary directory. */
function makeCertificates(dir: string): { ca: string; key: string; cert: string } {
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  run(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=Agent Service test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
  );
  run(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-subj",
    "/CN=127.0.0.1",
    "-keyout",
    "server.key",
    "-out",
    "server.csr",
  );
  const extensions = path.join(dir, "server.ext");
  execFileSync("sh", [
    "-c",
    `printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nextendedKeyUsage=serverAuth\\n' > '${extensions}'`,
  ]);
  run(
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "1",
    "-extfile",
    "server.ext",
    "-out",
    "server.pem",
  );
  return {
    ca: path.join(dir, "ca.pem"),
    key: readFileSync(path.join(dir, "server.key"), "utf8"),
    cert: readFileSync(path.join(dir, "server.pem"), "utf8"),
  };
}

export async function startTestProvider({
  redirectUris,
  accounts,
}: {
  redirectUris: string[];
  accounts: Record<string, TestAccount>;
}): Promise<TestProvider> {
  const dir = mkdtempSync(path.join(tmpdir(), "oidc-provider-"));
  const certificates = makeCertificates(dir);
  const server: Server = createServer({ key: certificates.key, cert: certificates.cert });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  const issuer = `https://127.0.0.1:${address.port}`;
  const clientId = "agent-service";
  const clientSecret = "a-client-secret-of-the-test-provider";
  const switches = { tamperIdTokens: false, misnameIssuer: false };

  // The provider's own signing key: its id tokens are RS256 JWTs signed with it.
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: "jwk" }), kid: "test-key", use: "sig" }] },
    cookies: { keys: ["a-cookie-key-of-the-test-provider"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], groups: ["groups"] },
    scopes: ["openid", "email", "groups"],
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, id) {
      const account = accounts[id];
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
  };
  const provider = new Provider(issuer, configuration);

  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as Record<string, unknown> | undefined;
    if (switches.misnameIssuer && ctx.path === "/.well-known/openid-configuration" && body)
      ctx.body = { ...body, issuer: "https://issuer.invalid" };
    if (switches.tamperIdTokens && ctx.path === "/token" && typeof body?.id_token === "string")
      ctx.body = { ...body, id_token: withEmail(body.id_token, "mallory@example.com") };
  });

  const handler = provider.callback();
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    if (request.url?.startsWith("/interaction/")) {
      interact(provider, request, response).catch((error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
      });
      return;
    }
    handler(request, response);
  });

  const dispatcher = new Agent({ connect: { ca: readFileSync(certificates.ca, "utf8") } });
  return {
    issuer,
    caFile: certificates.ca,
    clientId,
    clientSecret,
    switches,
    browser: () => providerBrowser(issuer, dispatcher),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dispatcher.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The login and consent "pages": the account the browser names signs in, and is granted all. */
async function interact(
  provider: Provider,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  if (details.prompt.name === "login") {
    const account = String(request.headers["x-test-account"]);
    await provider.interactionFinished(
      request,
      response,
      { login: { accountId: account } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  const grant = new provider.Grant({
    accountId: details.session?.accountId as string,
    clientId: details.params.client_id as string,
  });
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  const grantId = await grant.save();
  await provider.interactionFinished(
    request,
    response,
    { consent: { grantId } },
    { mergeWithLastSubmission: true },
  );
}

/** An id token whose payload names another email, its header and signature left as they were. */
function withEmail(idToken: string, email: string): string {
  const [header, payload, signature] = idToken.split(".") as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  claims.email = email;
  claims.email_verified = true;
  return [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join(".");
}

function providerBrowser(issuer: string, dispatcher: Agent): ProviderBrowser {
  const cookies = new Map<string, string>();
  return {
    async signInAt(start, account) {
      let url = start;
      for (let hop = 0; hop < 10; hop++) {
        if (!url.startsWith(issuer)) return url;
        const response = await undiciFetch(url, {
          dispatcher,
          redirect: "manual",
          headers: {
            "x-test-account": account,
            cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; "),
          },
        });
        for (const line of response.headers.getSetCookie()) {
          const [pair = ""] = line.split(";");
          const [name = "", ...value] = pair.split("=");
          if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) cookies.delete(name.trim());
          else cookies.set(name.trim(), value.join("="));
        }
        const location = response.headers.get("location");
        if (!location)
          throw new Error(
            `the provider answered ${response.status} at ${url}: ${await response.text()}`,
          );
        await response.body?.cancel();
        url = new URL(location, url).href;
      }
      throw new Error("too many redirects at the provider");
    },
  };
}
