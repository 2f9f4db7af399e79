"use client";

import { createSiweMessage } from "viem/siwe";
import { useAccount, useSignMessage } from "wagmi";
import { trpc } from "@/components/trpc";

/**
 * Writes and signs a Sign-In with Ethereum message for this site with the connected wallet:
 * a fresh server nonce, the page's host as domain, the statement given. Used to sign in and to
 * change a deployment's status (where the statement is the JSON change, as workers send it).
 */
export function useSiweSigner() {
  const { address, chainId } = useAccount();
  const nonce = trpc.nonces.issue.useMutation();
  const { signMessageAsync } = useSignMessage();

  return async (statement: string, uriPath: string) => {
    if (!address)
      throw Object.assign(new Error("Connect a wallet first."), {
        name: "ConnectorNotConnectedError",
      });
    const { nonce: value } = await nonce.mutateAsync({ user_address: address });
    const message = createSiweMessage({
      domain: window.location.host,
      address,
      statement,
      uri: `${window.location.origin}${uriPath}`,
      version: "1",
      chainId: chainId ?? 1,
      nonce: value,
      issuedAt: new Date(),
    });
    const signature = await signMessageAsync({ message });
    return { address, message, signature };
  };
}
