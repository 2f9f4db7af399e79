import { problemOf } from "@/components/ui/problem";

/**
 * A wallet library's failure (wagmi, viem, the wallet's own EIP-1193 error) as a sentence for
 * the person at the screen: what happened and what to do, never a class name, an RPC code or
 * a library version ("Provider not found. Version: @wagmi/core@3.4.0").
 */

const BY_NAME: Record<string, string> = {
  ProviderNotFoundError:
    "No wallet was found in this browser. Install a wallet extension (such as MetaMask or Rabby) and reload the page, or sign in with the admin API key.",
  ConnectorNotFoundError:
    "No wallet was found in this browser. Install a wallet extension (such as MetaMask or Rabby) and reload the page.",
  ConnectorNotConnectedError: "Your wallet is not connected: connect it first.",
  ConnectorAccountNotFoundError:
    "Your wallet has no account open for this site: unlock it, pick an account and try again.",
  ConnectorChainMismatchError: "Your wallet switched network meanwhile: try again.",
  SwitchChainNotSupportedError:
    "Your wallet cannot switch network from here: switch it in the wallet itself, then try again.",
  ChainNotConfiguredError:
    "This dashboard does not know that network: switch your wallet to Ethereum in the wallet itself.",
};

/** EIP-1193 and JSON-RPC codes a wallet answers with. */
const BY_CODE: Record<number, string> = {
  4001: "You declined the request in your wallet. Nothing was signed or sent.",
  4100: "Your wallet did not allow this: unlock it, or pick the account you connected.",
  4200: "Your wallet does not support this request.",
  4900: "Your wallet is not connected to any network: check it, then try again.",
  4901: "Your wallet is not connected to that network: check it, then try again.",
  4902: "Your wallet does not know that network yet: add it in the wallet, then switch to it.",
  [-32002]: "Your wallet already has a request waiting: open the wallet to answer it.",
  [-32603]: "Your wallet reported an internal error: try again, or reload the page.",
};

type Walkable = { name?: unknown; code?: unknown; cause?: unknown; shortMessage?: unknown };

export function walletErrorSentence(error: unknown): string {
  // The cause chain: wagmi and viem wrap the wallet's error in their own.
  for (let e = error as Walkable | undefined, depth = 0; e && depth < 6; depth++) {
    if (typeof e.name === "string" && BY_NAME[e.name]) return BY_NAME[e.name] as string;
    if (typeof e.code === "number" && BY_CODE[e.code]) return BY_CODE[e.code] as string;
    e = e.cause as Walkable | undefined;
  }
  const short = (error as Walkable | undefined)?.shortMessage;
  if (typeof short === "string" && short) return `Your wallet reported: ${short}`;
  return "Your wallet could not do that. Check the wallet, then try again.";
}

/**
 * The failure of something signed and sent: the service's sentence when the service refused
 * it (or could not be reached), the wallet's in words when the wallet failed first.
 */
export function signingFailure(error: unknown): string {
  return (error as { name?: unknown } | undefined)?.name === "TRPCClientError"
    ? problemOf(error).detail
    : walletErrorSentence(error);
}
