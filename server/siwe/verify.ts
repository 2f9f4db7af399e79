import {
  type Address,
  createPublicClient,
  getAddress,
  type Hex,
  http,
  isAddress,
  isAddressEqual,
  verifyMessage,
} from "viem";
import { parseSiweMessage } from "viem/siwe";
import type { SiweConfig } from "@/server/frame/config";
import { AppError } from "@/server/frame/errors";

/**
 * Checks a signed Sign-In with Ethereum (EIP-4361) message field by field, each failure with its
 * own sentence. The nonce is left to the caller, which spends it in the transaction it authorises.
 */

/**
 * What a signed message may be used for, told apart by its URI (`${PUBLIC_URL}/login` signs in,
 * any other URI under PUBLIC_URL is a status update) and its statement (plain text or a JSON
 * object), so that neither can stand in for the other.
 */
export type MessagePurpose = "sign-in" | "status-update";

export const SIGN_IN_PATH = "/login";

export type VerifiedMessage = {
  /** The signer, EIP-55 checksummed. */
  address: Address;
  nonce: string;
  statement: string | undefined;
  chainId: number;
  purpose: MessagePurpose;
};

/** 401 for a message signed for the other use; its nonce is spent by the caller. */
export function wrongPurpose(expected: MessagePurpose): AppError {
  return new AppError(
    "wrong_message_purpose",
    expected === "sign-in"
      ? `This is not a sign-in message: a sign-in message's URI is the dashboard's sign-in page (PUBLIC_URL${SIGN_IN_PATH}) and its statement is plain text.`
      : `This is not a status update: a sign-in message cannot change a deployment (a status update's URI is not PUBLIC_URL${SIGN_IN_PATH}, and its statement is a JSON object).`,
  );
}

// secp256k1's order, halved: an `s` above it is the malleated twin of a valid signature (EIP-2).
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

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
  // The parser reads "Chain ID: 01" as 1; only the canonical form is one message.
  if (!/^Chain ID: [1-9]\d*$/m.test(input.message)) {
    throw new AppError(
      "invalid_siwe_message",
      "The message's Chain ID must be a decimal number without leading zeros.",
    );
  }
  if (!isAddress(address, { strict: true })) {
    throw new AppError(
      "invalid_siwe_message",
      "The message's address has mixed case but is not EIP-55 checksummed; write it checksummed or all in lower case.",
    );
  }
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
  if (isHighS(input.signature)) {
    throw new AppError(
      "invalid_signature",
      "The signature is not in canonical (low-s) form; sign again with a standard wallet.",
    );
  }
  if (!(await signatureIsValid(config, address, input.message, input.signature as Hex))) {
    throw new AppError(
      "invalid_signature",
      "The signature does not match the message and address.",
    );
  }
  const purpose = uri === `${config.baseUrl}${SIGN_IN_PATH}` ? "sign-in" : "status-update";
  return { address: getAddress(address), nonce, statement: fields.statement, chainId, purpose };
}

/** A 65-byte ECDSA signature whose `s` is in the upper half (contract wallets' are longer). */
function isHighS(signature: string): boolean {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return false;
  return BigInt(`0x${signature.slice(66, 130)}`) > HALF_ORDER;
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

/** EOA signatures are checked offline; with RPC_URL, contract wallets on chain (ERC-1271, 6492). */
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
