import { type EIP1193Provider, type Hex, toHex, verifyMessage } from "viem";
import { expect, screenshot, TEST_WALLET_INFO, test } from "./fixtures";
import { adminWallet, userWallet } from "./wallets";

/** The injected test wallet, seen from the page: what a dapp's wallet library would use. */
type TestWindow = { ethereum: EIP1193Provider & { isTestWallet?: boolean } };

test("the injected wallet is announced, connects and signs in real Chromium", async ({
  page,
  injectWallet,
}) => {
  await injectWallet(page, userWallet);
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Agent Service" })).toBeVisible();
  expect(new URL(page.url()).hostname).toBe("localhost");

  // EIP-6963: ask, and get the announcement with the provider that is also window.ethereum.
  const announced = await page.evaluate(
    () =>
      new Promise<{ info: Record<string, string>; sameAsWindowEthereum: boolean }>((resolve) => {
        window.addEventListener(
          "eip6963:announceProvider",
          (event) => {
            const { info, provider } = (event as CustomEvent).detail;
            resolve({
              info,
              sameAsWindowEthereum: provider === (window as unknown as TestWindow).ethereum,
            });
          },
          { once: true },
        );
        window.dispatchEvent(new Event("eip6963:requestProvider"));
      }),
  );
  expect(announced.info.name).toBe("Test Wallet");
  expect(announced.info.rdns).toBe(TEST_WALLET_INFO.rdns);
  expect(announced.info.icon).toMatch(/^data:image\/svg\+xml,/);
  expect(announced.info.uuid).toMatch(/^[0-9a-f-]{36}$/);
  expect(announced.sameAsWindowEthereum).toBe(true);

  const { accounts, chainId } = await page.evaluate(async () => {
    const { ethereum } = window as unknown as TestWindow;
    return {
      accounts: await ethereum.request({ method: "eth_requestAccounts" }),
      chainId: await ethereum.request({ method: "eth_chainId" }),
    };
  });
  expect(accounts).toEqual([userWallet.address]);
  expect(chainId).toBe("0x1");

  // A multi-line UTF-8 message (as SIWE messages are), hex-encoded as dapps send it.
  const message = "localhost wants you to sign in\n\nLigne deux : déjà vu ✓\n🚀 three\n";
  const signature = await page.evaluate(
    ([data, address]) =>
      (window as unknown as TestWindow).ethereum.request({
        method: "personal_sign",
        params: [data as Hex, address as Hex],
      }),
    [toHex(message), userWallet.address] as const,
  );
  expect(signature).toMatch(/^0x[0-9a-f]{130}$/);
  expect(await verifyMessage({ address: userWallet.address, message, signature })).toBe(true);
  expect(await verifyMessage({ address: adminWallet.address, message, signature })).toBe(false);

  await screenshot(page, "wallet-smoke");
});

test("the injected wallet follows EIP-1193: errors, chain switches and account changes", async ({
  page,
  injectWallet,
}) => {
  const wallet = await injectWallet(page, adminWallet, { chainId: 8453 });
  await page.goto("/");

  const seen = await page.evaluate(async () => {
    const { ethereum } = window as unknown as TestWindow;
    const events: unknown[] = [];
    ethereum.on("chainChanged", (id) => events.push(["chainChanged", id]));
    const errorOf = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: { code: number; message: string }) => ({
          code: error.code,
          message: error.message,
        }),
      );
    // Like a real wallet, no account is exposed until the site asks for them.
    const accountsBeforeConnect = await ethereum.request({ method: "eth_accounts" });
    await ethereum.request({ method: "eth_requestAccounts" });
    const before = await ethereum.request({ method: "eth_chainId" });
    const netVersion = await ethereum.request({ method: "net_version" });
    await ethereum.request({ method: "wallet_switchEthereumChain", params: [{ chainId: "0x1" }] });
    return {
      accountsBeforeConnect,
      before,
      netVersion,
      after: await ethereum.request({ method: "eth_chainId" }),
      permissions: await ethereum.request({ method: "wallet_getPermissions" }),
      unknown: await errorOf(ethereum.request({ method: "eth_sendTransaction" } as never)),
      typedData: await errorOf(
        ethereum.request({ method: "eth_signTypedData_v4", params: [] } as never),
      ),
      events,
    };
  });
  expect(seen.accountsBeforeConnect).toEqual([]);
  expect(seen.before).toBe("0x2105");
  expect(seen.netVersion).toBe("8453");
  expect(seen.after).toBe("0x1");
  expect(seen.permissions).toEqual([{ parentCapability: "eth_accounts" }]);
  expect(seen.unknown?.code).toBe(4200);
  expect(seen.typedData?.code).toBe(4200);
  expect(seen.events).toEqual([["chainChanged", "0x1"]]);
  expect(wallet.chainId).toBe(1);

  // The wallet's side switches the account: the page is told, and answers change.
  await page.evaluate(() => {
    const { ethereum } = window as unknown as TestWindow;
    ethereum.on("accountsChanged", (accounts) => {
      (window as unknown as { seenAccounts: unknown }).seenAccounts = accounts;
    });
  });
  await wallet.setAccount(userWallet);
  expect(
    await page.evaluate(() => (window as unknown as { seenAccounts: unknown }).seenAccounts),
  ).toEqual([userWallet.address]);
  expect(
    await page.evaluate(() =>
      (window as unknown as TestWindow).ethereum.request({ method: "eth_accounts" }),
    ),
  ).toEqual([userWallet.address]);

  // Signing for an account the wallet does not hold is refused (4100).
  const refused = await page.evaluate(
    ([address]) =>
      (window as unknown as TestWindow).ethereum
        .request({ method: "personal_sign", params: ["0x68656c6c6f", address as Hex] })
        .then(
          () => null,
          (error: { code: number }) => error.code,
        ),
    [adminWallet.address] as const,
  );
  expect(refused).toBe(4100);
});
