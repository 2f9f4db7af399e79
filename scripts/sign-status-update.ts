/**
 * A worked example of what a worker does to change a deployment's status:
 *   1. get a nonce for its address,
 *   2. write an EIP-4361 message whose statement is the JSON change,
 *   3. sign it with its wallet,
 *   4. POST it to /v1/deployments/worker/status.
 *
 * Usage:
 *   WORKER_PRIVATE_KEY=0x… npx tsx scripts/sign-status-update.ts <request_id> <status> ['{"details":"json"}']
 * Environment: SERVICE_URL (default http://localhost:3000, must match the server's PUBLIC_URL),
 * CHAIN_ID (default 1), PRIVY_TOKEN (optional).
 */
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";

const [requestId, status, detailsJson] = process.argv.slice(2);
const privateKey = process.env.WORKER_PRIVATE_KEY as `0x${string}` | undefined;
if (!requestId || !status || !privateKey) {
  console.error(
    "Usage: WORKER_PRIVATE_KEY=0x… tsx scripts/sign-status-update.ts <request_id> <status> [details-json]",
  );
  process.exit(2);
}
const serviceUrl = (process.env.SERVICE_URL ?? "http://localhost:3000").replace(/\/+$/, "");
const account = privateKeyToAccount(privateKey);

// 1. A single-use nonce, valid for 10 minutes.
const nonceResponse = await fetch(`${serviceUrl}/v1/nonce?user_address=${account.address}`);
if (!nonceResponse.ok)
  throw new Error(`GET /v1/nonce: ${nonceResponse.status} ${await nonceResponse.text()}`);
const { nonce } = (await nonceResponse.json()) as { nonce: string };

// 2. The message: the service's host as domain, a URI under its URL, the change as the statement.
const statement = {
  request_id: requestId,
  status,
  ...(detailsJson ? { deployment_details: JSON.parse(detailsJson) } : {}),
};
const message = createSiweMessage({
  domain: new URL(serviceUrl).host,
  address: account.address,
  statement: JSON.stringify(statement),
  uri: `${serviceUrl}/v1/deployments/worker/status`,
  version: "1",
  chainId: Number(process.env.CHAIN_ID ?? 1),
  nonce,
  issuedAt: new Date(),
});

// 3 and 4. Sign and send.
const response = await fetch(`${serviceUrl}/v1/deployments/worker/status`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    user_address: account.address,
    signature: await account.signMessage({ message }),
    siwe_msg: message,
    privy_token: process.env.PRIVY_TOKEN ?? "",
  }),
});
console.info(response.status, await response.text());
process.exit(response.ok ? 0 : 1);
