import { randomUUID } from "node:crypto";
import { and, asc, count, desc, eq, gt, lt } from "drizzle-orm";
import { getAddress } from "viem";
import { z } from "zod";
import {
  type DeploymentHistoryRow,
  type DeploymentRow,
  deploymentStatusHistory,
  deployments,
} from "@/db/schema";
import type { DataContext } from "@/server/frame/data-context";
import { AppError } from "@/server/frame/errors";
import { decodeCursor, encodeCursor } from "@/server/pagination";
import {
  type createDeploymentInputSchema,
  type Deployment,
  deploymentIdSchema,
  type deploymentWithHistorySchema,
  type listDeploymentsInputSchema,
  type listDeploymentsOutputSchema,
} from "./schema";

type Ctx = DataContext;

export function presentDeployment(row: DeploymentRow): Deployment {
  return {
    id: row.id,
    request_id: row.requestId,
    user_address: row.userAddress,
    worker_name: row.workerName,
    worker_uuid: row.workerUuid,
    proposal_hash: row.proposalHash,
    proposal_id: row.proposalId,
    deployment_details: row.deploymentDetails,
    proposal: row.proposal,
    Status: row.status,
    worker_address: row.workerAddress,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function presentHistory(row: DeploymentHistoryRow) {
  return {
    id: row.id,
    from_status: row.fromStatus,
    to_status: row.toStatus,
    signer_address: row.signerAddress,
    nonce: row.nonce,
    deployment_details: row.deploymentDetails,
    created_at: row.createdAt.toISOString(),
  };
}

/** Creates a deployment in `init` (admin). A request_id that exists already is a 409. */
export async function createDeployment(
  { db, clock }: Ctx,
  input: z.output<typeof createDeploymentInputSchema>,
): Promise<Deployment> {
  const now = clock.now();
  const [row] = await db
    .insert(deployments)
    .values({
      requestId: input.request_id ?? randomUUID(),
      userAddress: getAddress(input.user_address),
      workerName: input.worker_name ?? null,
      workerUuid: input.worker_uuid ?? null,
      proposalHash: input.proposal_hash ?? null,
      proposalId: input.proposal_id ?? null,
      deploymentDetails: input.deployment_details ?? {},
      proposal: input.proposal,
      workerAddress: input.worker_address ? getAddress(input.worker_address) : null,
      status: "init",
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing({ target: deployments.requestId })
    .returning();
  if (!row)
    throw new AppError(
      "conflict",
      `A deployment with request_id '${input.request_id}' exists already.`,
    );
  return presentDeployment(row);
}

/** Older than `before` (the next page), or newer than `after` (the page before, read backwards). */
const deploymentCursor = z.union([
  z.object({ before: deploymentIdSchema }),
  z.object({ after: deploymentIdSchema }),
]);

export async function listDeployments(
  { db }: Ctx,
  input: z.output<typeof listDeploymentsInputSchema>,
  /** When set, only this owner's deployments may be listed. */
  owner?: string,
): Promise<z.output<typeof listDeploymentsOutputSchema>> {
  if (owner && input.user_address && getAddress(input.user_address) !== getAddress(owner)) {
    throw new AppError("forbidden", "A wallet may list its own deployments only.");
  }
  const userAddress = owner ?? input.user_address;
  const cursor = input.cursor ? decodeCursor(input.cursor, deploymentCursor) : undefined;
  const backwards = cursor !== undefined && "after" in cursor;
  const filters = and(
    userAddress ? eq(deployments.userAddress, getAddress(userAddress)) : undefined,
    input.status ? eq(deployments.status, input.status) : undefined,
    input.proposal_id === undefined ? undefined : eq(deployments.proposalId, input.proposal_id),
  );
  const rows = await db
    .select()
    .from(deployments)
    .where(
      and(
        filters,
        cursor === undefined
          ? undefined
          : "after" in cursor
            ? gt(deployments.id, cursor.after)
            : lt(deployments.id, cursor.before),
      ),
    )
    .orderBy(backwards ? asc(deployments.id) : desc(deployments.id))
    .limit(input.limit + 1);
  const more = rows.length > input.limit;
  const page = rows.slice(0, input.limit);
  if (backwards) page.reverse();
  const first = page[0];
  const last = page.at(-1);
  const hasNext = backwards ? true : more;
  const hasPrevious = backwards ? more : cursor !== undefined;
  let total: number | undefined;
  if (input.include_total) {
    const [counted] = await db.select({ n: count() }).from(deployments).where(filters);
    total = counted?.n ?? 0;
  }
  return {
    deployments: page.map(presentDeployment),
    next_cursor: hasNext && last ? encodeCursor({ before: last.id }) : null,
    prev_cursor: hasPrevious && first ? encodeCursor({ after: first.id }) : null,
    ...(total === undefined ? {} : { total }),
  };
}

export async function getDeployment(
  { db }: Ctx,
  id: number,
  /** When set, another owner's deployment is not found (its existence is not told). */
  owner?: string,
): Promise<z.output<typeof deploymentWithHistorySchema>> {
  const [row] = await db.select().from(deployments).where(eq(deployments.id, id));
  if (!row || (owner && row.userAddress !== getAddress(owner)))
    throw new AppError("deployment_not_found", `Deployment ${id} not found.`);
  const history = await db
    .select()
    .from(deploymentStatusHistory)
    .where(eq(deploymentStatusHistory.deploymentId, id))
    .orderBy(asc(deploymentStatusHistory.id));
  return { ...presentDeployment(row), history: history.map(presentHistory) };
}
