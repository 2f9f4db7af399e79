"use client";

import { useConnect } from "wagmi";
import { Button } from "../ui/button";
import { ErrorText, Notice } from "../ui/notice";
import { useHydrated } from "../ui/use-hydrated";
import { walletErrorSentence } from "./wallet-errors";

export const NO_WALLET =
  "No wallet was found in this browser. Install a wallet extension (such as MetaMask or Rabby) and reload the page.";

/**
 * One button per wallet found in the browser (EIP-6963 announces each; the generic "Injected"
 * one is the fallback), or a sentence saying none was found, with connection errors in words.
 */
export function ConnectWallet({ label = "Connect wallet" }: { label?: string }) {
  const { connectors, connect, isPending, error } = useConnect();
  const hydrated = useHydrated();
  const wallets = connectors.filter((c) => c.id !== "injected" || connectors.length === 1);
  // Known only in the browser: whether any wallet injected itself into the page.
  const anyWallet = !hydrated || connectors.length > 1 || "ethereum" in window;

  if (!anyWallet) {
    return (
      <Notice variant="neutral" testId="no-wallet">
        {NO_WALLET}
      </Notice>
    );
  }
  return (
    <>
      <div className="row">
        {wallets.map((wallet) => (
          <Button
            key={wallet.uid}
            variant="primary"
            disabled={!hydrated || isPending}
            onClick={() => connect({ connector: wallet })}
          >
            {label}
            {wallet.id !== "injected" ? ` (${wallet.name})` : ""}
          </Button>
        ))}
      </div>
      {error && <ErrorText role="alert">{walletErrorSentence(error)}</ErrorText>}
    </>
  );
}
