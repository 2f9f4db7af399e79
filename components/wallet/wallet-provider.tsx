"use client";

import type { ReactNode } from "react";
import { createConfig, http, WagmiProvider } from "wagmi";
import { arbitrum, base, baseSepolia, mainnet, optimism, polygon, sepolia } from "wagmi/chains";
import { injected } from "wagmi/connectors";

/**
 * Wallet support (wagmi + viem), loaded only by the pages that sign: sign-in and deployments.
 * Injected wallets are found through EIP-6963 discovery; the app only asks them to sign.
 */
const walletConfig = createConfig({
  chains: [mainnet, base, optimism, arbitrum, polygon, sepolia, baseSepolia],
  connectors: [injected()],
  multiInjectedProviderDiscovery: true,
  transports: {
    [mainnet.id]: http(),
    [base.id]: http(),
    [optimism.id]: http(),
    [arbitrum.id]: http(),
    [polygon.id]: http(),
    [sepolia.id]: http(),
    [baseSepolia.id]: http(),
  },
  ssr: true,
});

export function WalletProvider({ children }: { children: ReactNode }) {
  return <WagmiProvider config={walletConfig}>{children}</WagmiProvider>;
}
