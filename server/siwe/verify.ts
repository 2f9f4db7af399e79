import {
  type Address,
  createPublicClient,
  getAddress,
  type Hex,
  http,
  isAddressEqual,
  verifyMessage,
} from "viem";
import { parseSiweMessage } from "viem/siwe";
import type { SiweConfig } from "@/server/config";
import { AppError } from "@/server/errors";

/**
 * Checks a signed Sign-In with Ethereum (EIP-4361) message, field by field, each failure with
 * its own sentence: the message is well formed (400), then its domain, URI, chain, times and
 * address match (401), then the signature is the address's (401). The nonce is left to the
 * caller, which spends it in the transaction of the change it authorises.
 */

export type VerifiedMessage = {
  /** The signer, EIP-55 checksummed. */
  address: Address;
  nonce: string;
  /** The message's statement, as written (worker SDKs put a JSON object there). */
  statement: string | undefined;
  chainId: number;
};

const rejected = (detail: string) => new AppError("siwe_rejected", detail);

export async function verifySiweMessage(
  config: SiweConfig,
  input: { message: string; signature: string; address: string },
  now: Date,
): Promise<VerifiedMessage> {
  const fields = parseSiweMessage(input.message);
  const { address, domain, uri, version, chainId, nonce, issuedAt } = fields;
  if (!address || !domain || !uri || !version || !chainId || !nonce || !issuedAt) {
    throw new AppError(
      "invalid_siwe_message",
      "siwe_msg is not an EIP-4361 message: it needs the domain line, the address, URI, Version, Chain ID, Nonce and Issued At.",
    );
  }
  if (version !== "1")
    throw new AppError(
      "invalid_siwe_message",
      `The message's Version is '${version}'; only 1 exists.`,
    );
  const dates = { issuedAt, expirationTime: fields.expirationTime, notBefore: fields.notBefore };
  for (const [name, date] of Object.entries(dates)) {
    if (date && Number.isNaN(date.getTime())) {
      throw new AppError(
        "invalid_siwe_message",
        `The message's ${name} is not an RFC 3339 date-time.`,
      );
    }
  }

  if (domain !== config.domain) {
    throw rejected(`The message is for '${domain}', but this service is '${config.domain}'.`);
  }
  if (fields.scheme && fields.scheme !== config.scheme) {
    throw rejected(
      `The message's scheme is '${fields.scheme}', but this service uses '${config.scheme}'.`,
    );
  }
  if (uri !== config.baseUrl && !uri.startsWith(`${config.baseUrl}/`)) {
    throw rejected(
      `The message's URI '${uri}' is not under this service's URL, ${config.baseUrl}.`,
    );
  }
  if (!config.chainIds.has(chainId)) {
    throw rejected(
      `Chain ${chainId} is not accepted here; accepted: ${[...config.chainIds].join(", ")}.`,
    );
  }
  checkTimes(config, dates, now);
  if (!isAddressEqual(address, input.address as Address)) {
    throw rejected("The message was written for a different address than user_address.");
  }
  if (!(await signatureIsValid(config, address, input.message, input.signature as Hex))) {
    throw new AppError(
      "invalid_signature",
      "The signature does not match the message and address.",
    );
  }
  return { address: getAddress(address), nonce, statement: fields.statement, chainId };
}

function checkTimes(
  { maxAgeS, clockSkewS }: Pick<SiweConfig, "maxAgeS" | "clockSkewS">,
  {
    issuedAt,
    expirationTime,
    notBefore,
  }: { issuedAt: Date; expirationTime?: Date; notBefore?: Date },
  now: Date,
): void {
  const skewMs = clockSkewS * 1000;
  if (issuedAt.getTime() > now.getTime() + skewMs)
    throw rejected("The message is issued in the future.");
  if (now.getTime() - issuedAt.getTime() > maxAgeS * 1000) {
    throw rejected(`The message was issued more than ${maxAgeS} seconds ago; sign a new one.`);
  }
  if (expirationTime && now.getTime() >= expirationTime.getTime())
    throw rejected("The message has expired.");
  if (notBefore && now.getTime() + skewMs < notBefore.getTime())
    throw rejected("The message is not valid yet.");
}

/**
 * EOA signatures are checked offline. With RPC_URL, viem's public client also checks smart
 * contract wallets (ERC-1271, and ERC-6492 for wallets not deployed yet) on chain.
 */
async function signatureIsValid(
  config: Pick<SiweConfig, "rpcUrl">,
  address: Address,
  message: string,
  signature: Hex,
): Promise<boolean> {
  try {
    if (config.rpcUrl) {
      const client = createPublicClient({ transport: http(config.rpcUrl, { timeout: 10_000 }) });
      return await client.verifyMessage({ address, message, signature });
    }
    return await verifyMessage({ address, message, signature });
  } catch {
    // Malformed signatures make viem throw: they are simply not valid.
    return false;
  }
}
