import { randomBytes } from "node:crypto";
import postgres from "postgres";
import type { LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { sampleProposal } from "../tests/helpers/proposal";

/**
 * Deployment status updates for the benchmark, signed ahead of the run: a worker wallet that
 * holds `deployments` deployments (status `deploying`), and for each request a fresh nonce
 * (inserted straight into siwe_nonces, as GET /v1/nonce would) and a signed "still deploying,
 * progress n" message. Each body works once, so a measurement sends exactly the bodies made for
 * it. Both the service and the baseline check them against the same table.
 */
export type StatusUpdateFixture = {
  /** `count` signed bodies, spread round-robin over the deployments. */
  sign(count: number, host: string): Promise<string[]>;
};

export async function prepareStatusUpdates(
  databaseUrl: string,
  deployments = 64,
): Promise<StatusUpdateFixture> {
  const worker: LocalAccount = privateKeyToAccount(generatePrivateKey());
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const requestIds = Array.from({ length: deployments }, (_, i) => `bench-deploy-${i}`);
  try {
    await sql`
      INSERT INTO deployments (request_id, user_address, proposal, status, worker_address,
                               created_at, updated_at)
      SELECT id, ${worker.address}, ${sql.json(sampleProposal)}, 'deploying', ${worker.address},
             now(), now()
      FROM unnest(${requestIds}::text[]) AS id`;
  } finally {
    await sql.end();
  }

  return {
    async sign(count, host) {
      const nonces = Array.from({ length: count }, () => randomBytes(12).toString("hex"));
      const db = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      try {
        await db`
          INSERT INTO siwe_nonces (nonce, address, issued_at, expires_at)
          SELECT n, ${worker.address.toLowerCase()}, now(), now() + interval '10 minutes'
          FROM unnest(${nonces}::text[]) AS n`;
      } finally {
        await db.end();
      }
      return Promise.all(
        nonces.map(async (nonce, i) => {
          const message = createSiweMessage({
            domain: host,
            address: worker.address,
            uri: `http://${host}/v1/deployments/worker/status`,
            version: "1",
            chainId: 8453,
            nonce,
            issuedAt: new Date(),
            statement: JSON.stringify({
              request_id: requestIds[i % deployments],
              status: "deploying",
              deployment_details: { progress: i },
            }),
          });
          return JSON.stringify({
            user_address: worker.address,
            signature: await worker.signMessage({ message }),
            siwe_msg: message,
            privy_token: "",
          });
        }),
      );
    },
  };
}
