/**
 * Sign-In with Ethereum: checking a signed message strictly (domain, URI, chain, nonce, times,
 * signature), its JSON statement, and Privy identity tokens. This index is the folder's public
 * surface: import the folder, not its files (docs/architecture.md).
 */
export { parseJsonStatement } from "./json-statement";
export { checkPrivyToken } from "./privy";
export { verifySiweMessage, wrongPurpose } from "./verify";
