"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { useAccount, useConnect, useDisconnect } from "wagmi";
import { problemOf, TrpcProvider, trpc } from "@/components/trpc";
import { useSiweSigner } from "./use-siwe";
import { WalletProvider } from "./wallet-provider";

export function SignInPage() {
  return (
    <TrpcProvider>
      <WalletProvider>
        <SignIn />
      </WalletProvider>
    </TrpcProvider>
  );
}

function SignIn() {
  const router = useRouter();
  const { address, isConnected, connector } = useAccount();
  const { connectors, connect, isPending: connecting, error: connectError } = useConnect();
  const { disconnect } = useDisconnect();
  const sign = useSiweSigner();
  const signIn = trpc.auth.signIn.useMutation();
  const signInWithKey = trpc.auth.signInWithKey.useMutation();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const enter = () => {
    router.replace("/dashboard");
    router.refresh();
  };

  async function signInWithWallet() {
    setError(undefined);
    setBusy(true);
    try {
      const signed = await sign("Sign in to the Agent Service dashboard.");
      await signIn.mutateAsync({ message: signed.message, signature: signed.signature });
      enter();
    } catch (caught) {
      setError(problemOf(caught).detail);
    } finally {
      setBusy(false);
    }
  }

  async function submitKey(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const key = new FormData(event.currentTarget).get("key");
    setError(undefined);
    try {
      await signInWithKey.mutateAsync({ key: String(key ?? "") });
      enter();
    } catch (caught) {
      setError(problemOf(caught).detail);
    }
  }

  // EIP-6963 discovery lists each installed wallet; the generic "Injected" one is a fallback.
  const wallets = connectors.filter((c) => c.id !== "injected" || connectors.length === 1);

  return (
    <main className="center-page">
      <h1>Sign in to Agent Service</h1>
      <section className="panel" aria-labelledby="wallet-heading">
        <h2 id="wallet-heading">With your wallet</h2>
        {!isConnected ? (
          <div className="row">
            {wallets.length === 0 && <p className="muted">No wallet found in this browser.</p>}
            {wallets.map((wallet) => (
              <button
                key={wallet.uid}
                type="button"
                className="primary"
                disabled={connecting}
                onClick={() => connect({ connector: wallet })}
              >
                Connect wallet{wallets.length > 1 ? ` (${wallet.name})` : ""}
              </button>
            ))}
          </div>
        ) : (
          <>
            <p>
              Connected{connector ? ` with ${connector.name}` : ""}:{" "}
              <code data-testid="address">{address}</code>
            </p>
            <div className="row">
              <button type="button" className="primary" onClick={signInWithWallet} disabled={busy}>
                {busy ? "Waiting for the signature…" : "Sign in with Ethereum"}
              </button>
              <button type="button" onClick={() => disconnect()}>
                Disconnect
              </button>
            </div>
          </>
        )}
        {connectError && <p className="error">{connectError.message}</p>}
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
