import { randomUUID } from "node:crypto";
import { and, asc, count, desc, eq, gt, lt, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { getAddress } from "viem";
import { z } from "zod";
import type { Db } from "@/db/client";
import {
  type DeploymentHistoryRow,
  type DeploymentRow,
  deploymentStatusHistory,
  deployments,
} from "@/db/schema";
import { type AuditSource, recordChange } from "@/server/audit";
import type { DataContext } from "@/server/frame/data-context";
import { AppError } from "@/server/frame/errors";
import { decodeCursor, encodeCursor, twoWayPage } from "@/server/pagination";
import {
  type createDeploymentInputSchema,
  type Deployment,
  deploymentIdSchema,
  type deploymentWithHistorySchema,
  type HistoryEntry,
  type historyPageInputSchema,
  type historyPageSchema,
  type listDeploymentsInputSchema,
  type listDeploymentsOutputSchema,
} from "./schema";
import { RECORD_HISTORY_LENGTH } from "./view";

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

function presentHistory(row: DeploymentHistoryRow): HistoryEntry {
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

/** Creates a deployment in `init` (admin), audited. A request_id that exists already is a 409. */
export async function createDeployment(
  { db, clock, ...source }: Ctx & AuditSource,
  input: z.output<typeof createDeploymentInputSchema>,
): Promise<Deployment> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const [row] = await tx
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
    const created = presentDeployment(row);
    // The proposal stays out: it can be large, and GET /v1/deployments/{id} has it.
    const { proposal: _proposal, ...recorded } = created;
    await recordChange(tx, source, {
      at: now,
      action: "deployment.created",
      target: `deployment:${row.id}`,
      after: recorded,
    });
    return created;
  });
}

/** Older than `before` (the next page), or newer than `after` (the page before, read backwards). */
const deploymentCursor = z.union([
  z.object({ before: deploymentIdSchema }),
  z.object({ after: deploymentIdSchema }),
]);

/**
 * A page of rows newest first by `id`, either way from a cursor: `read` fetches with the cursor's
 * condition, order and limit; `countAll` counts every row the filters take, when asked.
 */
async function pageById<Row extends { id: number }>(
  cursor: { after: number } | { before: number } | undefined,
  input: { limit: number; include_total?: boolean },
  id: PgColumn,
  read: (where: SQL | undefined, order: SQL, limit: number) => Promise<Row[]>,
  countAll: () => Promise<number>,
) {
  const backwards = cursor !== undefined && "after" in cursor;
  const where =
    cursor === undefined
      ? undefined
      : "after" in cursor
        ? gt(id, cursor.after)
        : lt(id, cursor.before);
  const rows = await read(where, backwards ? asc(id) : desc(id), input.limit + 1);
  const paged = twoWayPage(
    rows,
    input.limit,
    { backwards, fromCursor: cursor !== undefined },
    (row, before) => encodeCursor(before ? { after: row.id } : { before: row.id }),
  );
  return input.include_total ? { ...paged, total: await countAll() } : paged;
}

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
  const filters = and(
    userAddress ? eq(deployments.userAddress, getAddress(userAddress)) : undefined,
    input.status ? eq(deployments.status, input.status) : undefined,
    input.proposal_id === undefined ? undefined : eq(deployments.proposalId, input.proposal_id),
  );
  const { page, ...rest } = await pageById(
    cursor,
    input,
    deployments.id,
    (where, order, limit) =>
      db.select().from(deployments).where(and(filters, where)).orderBy(order).limit(limit),
    async () => (await db.select({ n: count() }).from(deployments).where(filters))[0]?.n ?? 0,
  );
  return { deployments: page.map(presentDeployment), ...rest };
}

/** The deployment of `id`, unless it is not there or (with `owner`) not the owner's. */
async function deploymentRow(db: Db, id: number, owner?: string): Promise<DeploymentRow> {
  const [row] = await db.select().from(deployments).where(eq(deployments.id, id));
  if (!row || (owner && row.userAddress !== getAddress(owner)))
    throw new AppError("deployment_not_found", `Deployment ${id} not found.`);
  return row;
}

/** The last `length` changes of a deployment, oldest first, and how many it has had in all. */
export async function recentHistory(
  db: Db,
  id: number,
  length: number,
): Promise<{ history: HistoryEntry[]; history_total: number }> {
  const ofThis = eq(deploymentStatusHistory.deploymentId, id);
  const rows = await db
    .select()
    .from(deploymentStatusHistory)
    .where(ofThis)
    .orderBy(desc(deploymentStatusHistory.id))
    .limit(length);
  const [counted] = await db.select({ n: count() }).from(deploymentStatusHistory).where(ofThis);
  return { history: rows.reverse().map(presentHistory), history_total: counted?.n ?? 0 };
}

export async function getDeployment(
  { db }: Ctx,
  id: number,
  /** When set, another owner's deployment is not found (its existence is not told). */
  owner?: string,
): Promise<z.output<typeof deploymentWithHistorySchema>> {
  const row = await deploymentRow(db, id, owner);
  return { ...presentDeployment(row), ...(await recentHistory(db, id, RECORD_HISTORY_LENGTH)) };
}

/** Older than `before` (the next page), or newer than `after` (the page before, read backwards). */
const historyCursor = z.union([
  z.object({ before: z.int().positive() }),
  z.object({ after: z.int().positive() }),
]);

/** A deployment's whole history a page at a time, newest first, as its listing pages. */
export async function listHistory(
  { db }: Ctx,
  input: z.output<typeof historyPageInputSchema>,
  /** When set, another owner's deployment is not found (its existence is not told). */
  owner?: string,
): Promise<z.output<typeof historyPageSchema>> {
  await deploymentRow(db, input.id, owner);
  const cursor = input.cursor ? decodeCursor(input.cursor, historyCursor) : undefined;
  const ofThis = eq(deploymentStatusHistory.deploymentId, input.id);
  const { page, ...rest } = await pageById(
    cursor,
    input,
    deploymentStatusHistory.id,
    (where, order, limit) =>
      db
        .select()
        .from(deploymentStatusHistory)
        .where(and(ofThis, where))
        .orderBy(order)
        .limit(limit),
    async () =>
      (await db.select({ n: count() }).from(deploymentStatusHistory).where(ofThis))[0]?.n ?? 0,
  );
  return { history: page.map(presentHistory), ...rest };
}
