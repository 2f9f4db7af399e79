import { importSPKI, jwtVerify } from "jose";
import type { PrivyConfig } from "@/server/config";
import { AppError } from "@/server/errors";

/**
 * Privy access tokens: ES256 JWTs issued by privy.io for our app id. Checked when Privy is
 * configured; required only when PRIVY_REQUIRED is true. Without configuration the token is
 * ignored.
 */
export async function checkPrivyToken(
  config: PrivyConfig | undefined,
  token: string | null | undefined,
): Promise<void> {
  if (!config) return;
  if (!token) {
    if (config.required)
      throw new AppError("invalid_token", "A Privy access token (privy_token) is required.");
    return;
  }
  const key = await verificationKey(config.verificationKey);
  try {
    await jwtVerify(token, key, {
      issuer: "privy.io",
      audience: config.appId,
      algorithms: ["ES256"],
    });
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
