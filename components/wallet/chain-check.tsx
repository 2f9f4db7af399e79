"use client";

import { useState } from "react";
import { useAccount, useSwitchChain } from "wagmi";
import { Button } from "../ui/button";
import { Notice } from "../ui/notice";
import { chainName, switchTarget } from "./chains";
import { walletErrorSentence } from "./wallet-errors";

/** Whether the connected wallet is on a network this service accepts signatures from. */
export function useChainAccepted(accepted: readonly number[]): boolean {
  const { chainId } = useAccount();
  return chainId !== undefined && accepted.includes(chainId);
}

/**
 * When the connected wallet is on a network the service does not accept messages from, says so
 * and offers the switch (the wallet asks its user to approve it).
 */
export function ChainCheck({ accepted }: { accepted: readonly number[] }) {
  const { chainId, isConnected } = useAccount();
  const { switchChainAsync, isPending } = useSwitchChain();
  const [error, setError] = useState<string>();
  if (!isConnected || chainId === undefined || accepted.includes(chainId)) return null;
  const target = switchTarget(accepted);
  return (
    <Notice
      variant="error"
      testId="wrong-chain"
      action={
        <>
          {target && (
            <Button
              disabled={isPending}
              onClick={async () => {
                setError(undefined);
                try {
                  await switchChainAsync({ chainId: target.id });
                } catch (caught) {
                  setError(walletErrorSentence(caught));
                }
              }}
            >
              {isPending ? "Switching…" : `Switch to ${target.name}`}
            </Button>
          )}
          {error && <span>{error}</span>}
        </>
      }
    >
      Your wallet is on {chainName(chainId)}, which this service does not accept for signing.
      {target
        ? ` Switch to ${target.name} to go on.`
        : " Switch to an accepted network in your wallet."}
    </Notice>
  );
}
