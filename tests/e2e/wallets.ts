import { privateKeyToAccount } from "viem/accounts";

/**
 * Fixed wallets for the browser tests. The keys are throwaway test keys (made once with viem's
 * generatePrivateKey); they hold nothing and must never be used anywhere else.
 */

/** Listed in ADMIN_ADDRESSES by the global setup: signs in as an admin. */
export const adminWallet = privateKeyToAccount(
  "0xab01c5a3c99574e1cbf444f1adf383ca84c02f7c6aa1e7701ebe61ace6e7edc5",
);

/** Not an admin: signs in as a plain wallet user. */
export const userWallet = privateKeyToAccount(
  "0x5818ec971711982fb712f7372a0ebdf47c36fcf8e916a315e97fdd88b3909ab8",
);
