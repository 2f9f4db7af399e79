import { arbitrum, base, baseSepolia, mainnet, optimism, polygon, sepolia } from "wagmi/chains";

/** The networks the dashboard's wallet code knows (what it can ask a wallet to switch to). */
export const WALLET_CHAINS = [
  mainnet,
  base,
  optimism,
  arbitrum,
  polygon,
  sepolia,
  baseSepolia,
] as const;

/** A network's name for people, or its number when this dashboard does not know it. */
export function chainName(chainId: number | undefined): string {
  if (chainId === undefined) return "no network";
  return WALLET_CHAINS.find((chain) => chain.id === chainId)?.name ?? `network ${chainId}`;
}

/** The network to offer a switch to: Ethereum if accepted, else the first accepted one known. */
export function switchTarget(accepted: readonly number[]) {
  return (
    WALLET_CHAINS.find((chain) => chain.id === mainnet.id && accepted.includes(chain.id)) ??
    WALLET_CHAINS.find((chain) => accepted.includes(chain.id))
  );
}
