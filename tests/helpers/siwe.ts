import { SiweMessage } from "siwe";
import type { LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";

/**
 * Signed status updates as workers make them: an EIP-4361 message whose statement is a JSON
 * object, built by viem's createSiweMessage or by the `siwe` library (v2, what worker SDKs
 * use), signed by a viem local account.
 */

export const newAccount = (): LocalAccount => privateKeyToAccount(generatePrivateKey());

export type MessageFields = {
  domain: string;
  uri: string;
  chainId: number;
  nonce: string;
  issuedAt: Date;
  expirationTime?: Date;
  notBefore?: Date;
  /** The address written into the message (defaults to the signer's). */
  address?: `0x${string}`;
};

export type Statement = { request_id: string; status: string; [key: string]: unknown };

export function buildMessage(
  via: "viem" | "siwe",
  account: LocalAccount,
  statement: Statement,
  fields: MessageFields,
) {
  const address = fields.address ?? account.address;
  if (via === "viem") {
    return createSiweMessage({
      ...fields,
      address,
      version: "1",
      statement: JSON.stringify(statement),
    });
  }
  return new SiweMessage({
    domain: fields.domain,
    address,
    statement: JSON.stringify(statement),
    uri: fields.uri,
    version: "1",
    chainId: fields.chainId,
    nonce: fields.nonce,
    issuedAt: fields.issuedAt.toISOString(),
    expirationTime: fields.expirationTime?.toISOString(),
    notBefore: fields.notBefore?.toISOString(),
  }).prepareMessage();
}

export async function signedBody(
  account: LocalAccount,
  message: string,
  extra: { privy_token?: string; user_address?: string } = {},
) {
  return {
    user_address: extra.user_address ?? account.address,
    signature: await account.signMessage({ message }),
    siwe_msg: message,
    privy_token: extra.privy_token ?? "",
  };
}
