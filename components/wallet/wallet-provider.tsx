"use client";

import type { ReactNode } from "react";
import { createConfig, http, WagmiProvider } from "wagmi";
import { injected } from "wagmi/connectors";
import { WALLET_CHAINS } from "./chains";

/**
 * Wallet support (wagmi + viem), loaded only by the pages that sign: sign-in and deployments.
 * Injected wallets are found through EIP-6963 discovery; the app only asks them to sign, and
 * to switch network when the service does not accept the one they are on.
 */
const walletConfig = createConfig({
  chains: WALLET_CHAINS,
  connectors: [injected()],
  multiInjectedProviderDiscovery: true,
  transports: Object.fromEntries(WALLET_CHAINS.map((chain) => [chain.id, http()])) as Record<
    (typeof WALLET_CHAINS)[number]["id"],
    ReturnType<typeof http>
  >,
  ssr: true,
});

export function WalletProvider({ children }: { children: ReactNode }) {
  return <WagmiProvider config={walletConfig}>{children}</WagmiProvider>;
}
