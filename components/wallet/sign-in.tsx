"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { useAccount, useDisconnect } from "wagmi";
import { TrpcProvider, trpc } from "@/components/trpc";
import { problemOf } from "@/components/ui/problem";
import { ChainCheck, useChainAccepted } from "./chain-check";
import { ConnectWallet } from "./connect-wallet";
import { useSiweSigner } from "./use-siwe";
import { signingFailure } from "./wallet-errors";
import { WalletProvider } from "./wallet-provider";

export type SignInProps = {
  /** Chains the service accepts in Sign-In with Ethereum messages (SIWE_CHAIN_IDS). */
  chainIds: number[];
  /** Why the user is here: their session ended (`1`) or an admin ended all of them (`all`). */
  ended?: string;
};

export function SignInPage(props: SignInProps) {
  return (
    <TrpcProvider>
      <WalletProvider>
        <SignIn {...props} />
      </WalletProvider>
    </TrpcProvider>
  );
}

function SignIn({ chainIds, ended }: SignInProps) {
  const router = useRouter();
  const { address, isConnected, connector } = useAccount();
  const { disconnect } = useDisconnect();
  const sign = useSiweSigner();
  const chainAccepted = useChainAccepted(chainIds);
  const signIn = trpc.auth.signIn.useMutation();
  const signInWithKey = trpc.auth.signInWithKey.useMutation();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  // Admins start at the overview; a wallet at its deployments (the only pages it may see).
  const enter = (role: "admin" | "wallet" | undefined) => {
    router.replace(role === "admin" ? "/dashboard" : "/dashboard/deployments");
    router.refresh();
  };

  async function signInWithWallet() {
    setError(undefined);
    setBusy(true);
    try {
      // A sign-in message names the sign-in page as its URI (what tells it from a status update).
      const signed = await sign("Sign in to the Agent Service dashboard.", "/login");
      const session = await signIn.mutateAsync({
        message: signed.message,
        signature: signed.signature,
      });
      enter(session?.role);
    } catch (caught) {
      setError(signingFailure(caught));
    } finally {
      setBusy(false);
    }
  }

  async function submitKey(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const key = new FormData(event.currentTarget).get("key");
    setError(undefined);
    try {
      enter((await signInWithKey.mutateAsync({ key: String(key ?? "") }))?.role);
    } catch (caught) {
      setError(problemOf(caught).detail);
    }
  }

  return (
    <main className="center-page">
      <h1>Sign in to Agent Service</h1>
      {ended && (
        <p className="notice info" role="status" data-testid="session-ended">
          {ended === "all"
            ? "Every dashboard session was ended, yours too. Sign in again to go on."
            : "Your session has ended (signed out in another tab, or ended by an admin). Sign in again to go on."}
        </p>
      )}
      <section className="panel" aria-labelledby="wallet-heading">
        <h2 id="wallet-heading">With your wallet</h2>
        {!isConnected ? (
          <ConnectWallet />
        ) : (
          <>
            <p>
              Connected{connector ? ` with ${connector.name}` : ""}:{" "}
              <code data-testid="address">{address}</code>
            </p>
            <ChainCheck accepted={chainIds} />
            <div className="row">
              <button
                type="button"
                className="primary"
                onClick={signInWithWallet}
                disabled={busy || !chainAccepted}
              >
                {busy ? "Waiting for the signature…" : "Sign in with Ethereum"}
              </button>
              <button type="button" onClick={() => disconnect()}>
                Disconnect
              </button>
            </div>
          </>
        )}
      </section>
      <section className="panel" aria-labelledby="key-heading">
        <h2 id="key-heading">With the admin API key</h2>
        <form onSubmit={submitKey}>
          <div className="field">
            <label htmlFor="key">Admin API key</label>
            <input id="key" name="key" type="password" autoComplete="current-password" required />
          </div>
          <button type="submit" disabled={signInWithKey.isPending}>
            Sign in with the key
          </button>
        </form>
      </section>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </main>
  );
}
