/**
 * GET /v1/nonce: single-use nonces for Sign-In with Ethereum messages, issued within a rate limit
 * and spent once. This index is the folder's public surface: import the folder, not its files
 * (docs/architecture.md).
 */

export { issueNonce, purgeExpiredNonces, spendNonce } from "./nonces";
export * from "./schema";
