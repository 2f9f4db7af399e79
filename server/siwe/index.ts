// Sign-In with Ethereum: strict message checks, the JSON statement, Privy identity tokens.
export { parseJsonStatement } from "./json-statement";
export { checkPrivyToken } from "./privy";
export { verifySiweMessage, wrongPurpose } from "./verify";
