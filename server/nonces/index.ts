// GET /v1/nonce: single-use nonces for Sign-In with Ethereum, rate-limited and spent once.

export { issueNonce, purgeExpiredNonces, spendNonce } from "./nonces";
export * from "./schema";
