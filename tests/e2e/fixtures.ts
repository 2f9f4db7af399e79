import { randomUUID } from "node:crypto";
import path from "node:path";
import { test as base, type Page } from "@playwright/test";
import { type Hex, isAddressEqual, isHex, numberToHex } from "viem";
import type { LocalAccount } from "viem/accounts";

/**
 * A test wallet injected into real pages: an EIP-1193 provider, announced through EIP-6963 and
 * set as `window.ethereum`, whose requests are answered in Node by a viem local account (so
 * signatures are real and verify with viem's verifyMessage).
 */

export type InjectWalletOptions = { chainId?: number };

export type InjectedWallet = {
  /** The account now answering (changed by setAccount). */
  readonly account: LocalAccount;
  /** The chain now selected (changed by wallet_switchEthereumChain or setChainId). */
  readonly chainId: number;
  /** Switches the account, as a user would in the wallet: the page gets `accountsChanged`. */
  setAccount(account: LocalAccount): Promise<void>;
  /** Switches the chain from the wallet's side: the page gets `chainChanged`. */
  setChainId(chainId: number): Promise<void>;
};

export const TEST_WALLET_INFO = {
  name: "Test Wallet",
  rdns: "dev.agent-service.testwallet",
  icon: `data:image/svg+xml,${encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#3b5bdb"/><path d="M8 11h16v10H8z" fill="#fff"/><circle cx="20" cy="16" r="2" fill="#3b5bdb"/></svg>',
  )}`,
} as const;

/** What the Node side answers: a result, or an EIP-1193 error (codes do not cross the binding). */
type RpcAnswer =
  | { result: unknown; emit?: { event: string; data: unknown } }
  | { error: { code: number; message: string } };

/** `connected`: the site was approved (eth_requestAccounts); until then eth_accounts is [], as in real wallets. */
type WalletState = { account: LocalAccount; chainId: number; connected: boolean };

const BINDING = "__testWalletRequest";
const EMIT = "__testWalletEmit";

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

function parseChainId(value: unknown): number {
  const raw = (value as { chainId?: unknown } | undefined)?.chainId;
  if (typeof raw === "string" && isHex(raw)) return Number.parseInt(raw, 16);
  if (typeof raw === "number" && Number.isInteger(raw) && raw > 0) return raw;
  throw new RpcError(-32602, "wallet_switchEthereumChain: expected [{ chainId: <hex> }]");
}

async function answer(state: WalletState, method: string, params: unknown): Promise<RpcAnswer> {
  const list = Array.isArray(params) ? params : [];
  switch (method) {
    case "eth_requestAccounts":
      state.connected = true;
      return { result: [state.account.address] };
    case "eth_accounts":
      return { result: state.connected ? [state.account.address] : [] };
    case "eth_chainId":
      return { result: numberToHex(state.chainId) };
    case "net_version":
      return { result: String(state.chainId) };
    case "wallet_switchEthereumChain": {
      const chainId = parseChainId(list[0]);
      const changed = chainId !== state.chainId;
      state.chainId = chainId;
      return changed
        ? { result: null, emit: { event: "chainChanged", data: numberToHex(chainId) } }
        : { result: null };
    }
    case "wallet_requestPermissions":
    case "wallet_getPermissions":
      return { result: [{ parentCapability: "eth_accounts" }] };
    case "personal_sign": {
      // [message, address]; some callers swap them, so find the address among the two.
      const [first, second] = list as unknown[];
      const [message, address] =
        typeof first === "string" && first.length === 42 && isHex(first) && second !== undefined
          ? [second, first]
          : [first, second];
      if (typeof message !== "string")
        throw new RpcError(-32602, "personal_sign: expected [message, address]");
      if (typeof address !== "string" || !isHex(address) || address.length !== 42)
        throw new RpcError(-32602, "personal_sign: expected an address");
      if (!isAddressEqual(address, state.account.address))
        throw new RpcError(4100, `personal_sign: ${address} is not the connected account`);
      // Hex is the UTF-8 bytes of the message: sign those exact bytes (EIP-191), which is what
      // verifyMessage({ message: <the decoded string> }) checks. A plain string is signed as is.
      const signature = isHex(message)
        ? await state.account.signMessage({ message: { raw: message as Hex } })
        : await state.account.signMessage({ message });
      return { result: signature };
    }
    case "eth_signTypedData_v4":
      throw new RpcError(4200, "The test wallet does not support eth_signTypedData_v4");
    default:
      throw new RpcError(4200, `The test wallet does not support ${method}`);
  }
}

/** The page side: must not close over anything (it is serialized into the page). */
function installProvider(init: {
  address: string;
  chainId: string;
  uuid: string;
  info: { name: string; rdns: string; icon: string };
  binding: string;
  emitName: string;
}) {
  type Listener = (...args: unknown[]) => void;
  type Answer =
    | { result: unknown; emit?: { event: string; data: unknown } }
    | { error: { code: number; message: string } };
  const w = window as unknown as Record<string, unknown>;
  const call = w[init.binding] as (method: string, params: unknown) => Promise<Answer>;
  const listeners = new Map<string, Set<Listener>>();
  const emit = (event: string, data: unknown) => {
    for (const listener of [...(listeners.get(event) ?? [])]) {
      try {
        listener(data);
      } catch (error) {
        console.error(error);
      }
    }
  };

  const provider = {
    isTestWallet: true,
    async request(args: { method: string; params?: unknown }) {
      if (!args || typeof args.method !== "string") {
        throw Object.assign(new Error("request: expected { method, params }"), { code: -32600 });
      }
      const answer = await call(args.method, args.params ?? []);
      if ("error" in answer) {
        throw Object.assign(new Error(answer.error.message), {
          code: answer.error.code,
          message: answer.error.message,
        });
      }
      if (answer.emit) emit(answer.emit.event, answer.emit.data);
      return answer.result;
    },
    on(event: string, listener: Listener) {
      const set = listeners.get(event) ?? new Set<Listener>();
      set.add(listener);
      listeners.set(event, set);
      return provider;
    },
    addListener(event: string, listener: Listener) {
      return provider.on(event, listener);
    },
    once(event: string, listener: Listener) {
      const wrapped: Listener = (...args) => {
        provider.removeListener(event, wrapped);
        listener(...args);
      };
      return provider.on(event, wrapped);
    },
    removeListener(event: string, listener: Listener) {
      listeners.get(event)?.delete(listener);
      return provider;
    },
    off(event: string, listener: Listener) {
      return provider.removeListener(event, listener);
    },
    removeAllListeners(event?: string) {
      if (event === undefined) listeners.clear();
      else listeners.delete(event);
      return provider;
    },
  };

  // Node-initiated changes (setAccount / setChainId) arrive here.
  w[init.emitName] = emit;
  w.ethereum = provider;

  const detail = Object.freeze({
    info: Object.freeze({ uuid: init.uuid, ...init.info }),
    provider,
  });
  const announce = () =>
    window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail }));
  window.addEventListener("eip6963:requestProvider", announce);
  announce();
  queueMicrotask(() => emit("connect", { chainId: init.chainId }));
}

/**
 * Installs the test wallet in `page`; call it before the page navigates (it applies to every
 * document the page loads from then on). The wallet is always connected to `account`.
 */
export async function injectWallet(
  page: Page,
  account: LocalAccount,
  { chainId = 1 }: InjectWalletOptions = {},
): Promise<InjectedWallet> {
  const state: WalletState = { account, chainId, connected: false };
  await page.exposeFunction(
    BINDING,
    async (method: string, params: unknown): Promise<RpcAnswer> => {
      try {
        return await answer(state, method, params);
      } catch (error) {
        if (error instanceof RpcError)
          return { error: { code: error.code, message: error.message } };
        return { error: { code: -32603, message: String(error) } };
      }
    },
  );
  await page.addInitScript(installProvider, {
    address: account.address,
    chainId: numberToHex(chainId),
    uuid: randomUUID(),
    info: { ...TEST_WALLET_INFO },
    binding: BINDING,
    emitName: EMIT,
  });

  const emitInPage = async (event: string, data: unknown) => {
    await page.evaluate(
      ([name, event, data]) => {
        const emit = (window as unknown as Record<string, unknown>)[name as string];
        if (typeof emit === "function") emit(event, data);
      },
      [EMIT, event, data] as const,
    );
  };
  return {
    get account() {
      return state.account;
    },
    get chainId() {
      return state.chainId;
    },
    async setAccount(next) {
      state.account = next;
      await emitInPage("accountsChanged", [next.address]);
    },
    async setChainId(next) {
      state.chainId = next;
      await emitInPage("chainChanged", numberToHex(next));
    },
  };
}

/** Saves a full-page screenshot as test-results/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(base.info().project.outputDir, "screenshots", `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** `E2E_CPU_THROTTLE=4` runs each page's scripts four times slower, to find tests that race hydration. */
const throttleRate = Number(process.env.E2E_CPU_THROTTLE ?? "1");

export const test = base.extend<{
  injectWallet: typeof injectWallet;
  noCspViolations: undefined;
  cpuThrottle: undefined;
}>({
  cpuThrottle: [
    async ({ page }, use) => {
      if (throttleRate > 1) {
        const session = await page.context().newCDPSession(page);
        await session.send("Emulation.setCPUThrottlingRate", { rate: throttleRate });
      }
      await use(undefined);
    },
    { auto: true },
  ],
  // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take a destructured object.
  injectWallet: async ({}, use) => {
    await use(injectWallet);
  },
  /** Every test fails if the page broke the Content-Security-Policy the service sends. */
  noCspViolations: [
    async ({ page }, use) => {
      const violations: string[] = [];
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      await use(undefined);
      if (violations.length > 0)
        throw new Error(`Content-Security-Policy violations:\n${violations.join("\n")}`);
    },
    { auto: true },
  ],
});

export { expect } from "@playwright/test";
