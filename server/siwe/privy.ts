import { importSPKI, type JWTPayload, jwtVerify } from "jose";
import type { PrivyConfig } from "@/server/frame/config";
import { AppError } from "@/server/frame/errors";

/**
 * Privy tokens: ES256 JWTs issued by privy.io for our app id. Only an identity token lists the
 * user's wallets (`linked_accounts`, signed by Privy), so the signer can be checked offline; an
 * access token only proves a Privy session. With PRIVY_REQUIRED=true the token must be an
 * identity token listing the signing wallet.
 */
export async function checkPrivyToken(
  config: PrivyConfig | undefined,
  token: string | null | undefined,
  signer: string,
): Promise<void> {
  if (!config) return;
  if (!token) {
    if (config.required)
      throw new AppError(
        "invalid_token",
        "A Privy identity token (privy_token) listing the signing wallet is required.",
      );
    return;
  }
  const key = await verificationKey(config.verificationKey);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, key, {
      issuer: "privy.io",
      audience: config.appId,
      algorithms: ["ES256"],
      requiredClaims: ["exp", "sub"],
    }));
  } catch (error) {
    const code = (error as { code?: string }).code;
    const detail =
      code === "ERR_JWT_EXPIRED"
        ? "The Privy token has expired."
        : code === "ERR_JWT_CLAIM_VALIDATION_FAILED"
          ? `The Privy token is not for this app: ${(error as Error).message}.`
          : "The Privy token is not valid.";
    throw new AppError("invalid_token", detail);
  }
  const wallets = linkedWallets(payload);
  if (wallets === undefined) {
    if (config.required) {
      throw new AppError(
        "invalid_token",
        "The Privy token is an access token, which does not say whose wallets are whose; send the Privy identity token (it lists the user's linked wallets).",
      );
    }
    return;
  }
  if (!wallets.has(signer.toLowerCase())) {
    throw new AppError(
      "invalid_token",
      "The Privy token belongs to a user whose linked wallets do not include the signing wallet.",
    );
  }
}

/** The wallets an identity token's `linked_accounts` lists (lower case), or undefined if it has none. */
function linkedWallets(payload: JWTPayload): Set<string> | undefined {
  const claim = payload.linked_accounts;
  if (claim === undefined) return undefined;
  let accounts: unknown;
  try {
    accounts = typeof claim === "string" ? JSON.parse(claim) : claim;
  } catch {
    return new Set();
  }
  const wallets = new Set<string>();
  if (!Array.isArray(accounts)) return wallets;
  for (const account of accounts as { type?: unknown; address?: unknown }[]) {
    if (account?.type === "wallet" && typeof account.address === "string")
      wallets.add(account.address.toLowerCase());
  }
  return wallets;
}

const importedKeys = new Map<string, Promise<CryptoKey>>();

/** The imported key, once per PEM: importing is the slow part of a check. */
function verificationKey(pem: string): Promise<CryptoKey> {
  let key = importedKeys.get(pem);
  if (!key) {
    key = importSPKI(pem, "ES256").catch((error: unknown) => {
      importedKeys.delete(pem);
      throw new Error("PRIVY_VERIFICATION_KEY is not an ES256 public key in SPKI PEM form", {
        cause: error,
      });
    });
    importedKeys.set(pem, key);
  }
  return key;
}
