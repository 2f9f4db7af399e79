"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { useAccount, useDisconnect } from "wagmi";
import { TrpcProvider, trpc } from "@/components/trpc";
import { AnchorButton, Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { ErrorText, Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/panel";
import { problemOf } from "@/components/ui/problem";
import { useHydrated } from "@/components/ui/use-hydrated";
import { DASHBOARD_HOME, dashboardPathOrNull } from "@/server/auth/view";
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
  /** The dashboard page to go back to once signed in (checked: a dashboard path only). */
  next?: string;
  /** Where "Sign in with SSO" leads (keeping `next`); unset when OIDC is not configured. */
  ssoPath?: string;
  /** Why the last SSO sign-in was refused, as a sentence (server/auth/view.ts). */
  ssoError?: string;
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

function SignIn({ chainIds, ended, next, ssoPath, ssoError }: SignInProps) {
  const router = useRouter();
  const { address, isConnected, connector } = useAccount();
  const { disconnect } = useDisconnect();
  const sign = useSiweSigner();
  const chainAccepted = useChainAccepted(chainIds);
  const signIn = trpc.auth.signIn.useMutation();
  const signInWithKey = trpc.auth.signInWithKey.useMutation();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const hydrated = useHydrated();

  // Back to the page that sent the user here; otherwise admins start at the overview, a wallet
  // at its deployments (the only pages it may see). `next` is checked again here, as it is read.
  const enter = (role: string | undefined) => {
    router.replace(
      dashboardPathOrNull(next) ??
        (role && role !== "wallet" ? DASHBOARD_HOME : "/dashboard/deployments"),
    );
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
        <Notice variant="info" testId="session-ended">
          {ended === "all"
            ? "Every dashboard session was ended, yours too. Sign in again to go on."
            : "Your session has ended (signed out in another tab, or ended by an admin). Sign in again to go on."}
        </Notice>
      )}
      {ssoError && (
        <Notice variant="error" testId="sso-error">
          {ssoError}
        </Notice>
      )}
      {ssoPath && (
        <Panel title="With your organisation's account">
          <AnchorButton variant="primary" href={ssoPath} data-testid="sso-sign-in">
            Sign in with SSO
          </AnchorButton>
        </Panel>
      )}
      <Panel title="With your wallet">
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
              <Button
                variant="primary"
                onClick={signInWithWallet}
                disabled={busy || !chainAccepted}
              >
                {busy ? "Waiting for the signature…" : "Sign in with Ethereum"}
              </Button>
              <Button onClick={() => disconnect()}>Disconnect</Button>
            </div>
          </>
        )}
      </Panel>
      <Panel title="With the admin API key">
        {/* POST: were the form ever sent without its script, the key is not put in the URL. */}
        <form method="post" onSubmit={submitKey}>
          <Field name="key" label="Admin API key">
            {(control) => (
              <Input {...control} type="password" autoComplete="current-password" required />
            )}
          </Field>
          <Button type="submit" disabled={!hydrated || signInWithKey.isPending}>
            Sign in with the key
          </Button>
        </form>
      </Panel>
      {error && <ErrorText role="alert">{error}</ErrorText>}
    </main>
  );
}
