import { and, desc, eq, lt, sql } from "drizzle-orm";
import type { z } from "zod";
import { type WebhookDeliveryRow, webhookDeliveries } from "@/db/schema";
import { recordChange } from "@/server/audit";
import { AppError } from "@/server/frame/errors";
import { eventBodySql, NEW_WEBHOOK_ID } from "@/server/outbox";
import { beforeIdCursor, decodeCursor, keysetPage } from "@/server/pagination";
import { endpointRow, presentWebhook, type WebhooksContext } from "./endpoints";
import type {
  deliveryListSchema,
  listDeliveriesInputSchema,
  retryDeliveryInputSchema,
  WebhookDelivery,
} from "./schema";

export function presentDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    webhook_id: row.webhookId,
    endpoint_id: row.endpointId,
    event_type: row.eventType as WebhookDelivery["event_type"],
    status: row.status,
    attempt_count: row.attemptCount,
    next_attempt_at: row.status === "pending" ? row.nextAttemptAt.toISOString() : null,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
    attempts: row.attempts,
    payload: JSON.parse(row.body) as WebhookDelivery["payload"],
  };
}

export async function listDeliveries(
  ctx: Pick<WebhooksContext, "db">,
  input: z.output<typeof listDeliveriesInputSchema>,
): Promise<z.output<typeof deliveryListSchema>> {
  const endpoint = await endpointRow(ctx, input.id);
  const before = input.cursor ? decodeCursor(input.cursor, beforeIdCursor).before : undefined;
  const rows = await ctx.db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpoint.id),
        before === undefined ? undefined : lt(webhookDeliveries.id, before),
        input.status ? eq(webhookDeliveries.status, input.status) : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.id))
    .limit(input.limit + 1);
  const { page, nextCursor } = keysetPage(rows, input.limit, (last) => ({ before: last.id }));
  return { deliveries: page.map(presentDelivery), next_cursor: nextCursor };
}

function assertEnabled(endpoint: { id: string; enabled: boolean }): void {
  if (!endpoint.enabled)
    throw new AppError(
      "conflict",
      `Webhook endpoint '${endpoint.id}' is disabled; enable it first (PATCH with {"enabled": true}).`,
    );
}

/**
 * Sends a delivery again, now, with its webhook-id. A delivered or failed one gets one more
 * attempt (given up at once if it fails); a pending one is brought forward, keeping its retries.
 */
export async function retryDelivery(
  ctx: WebhooksContext,
  input: z.output<typeof retryDeliveryInputSchema>,
): Promise<WebhookDelivery> {
  const endpoint = await endpointRow(ctx, input.id);
  assertEnabled(endpoint);
  const now = ctx.clock.now();
  const row = await ctx.db.transaction(async (tx) => {
    const [retried] = await tx
      .update(webhookDeliveries)
      .set({
        status: "pending",
        nextAttemptAt: now,
        giveUpAt: sql`CASE WHEN ${webhookDeliveries.status} = 'pending' THEN ${webhookDeliveries.giveUpAt} ELSE ${now.toISOString()}::timestamptz END`,
        finishedAt: null,
      })
      .where(
        and(
          eq(webhookDeliveries.id, input.delivery_id),
          eq(webhookDeliveries.endpointId, endpoint.id),
        ),
      )
      .returning();
    if (retried)
      await recordChange(tx, ctx, {
        at: now,
        action: "webhook.delivery_retried",
        target: `webhook:${endpoint.id}`,
        after: { delivery_id: retried.id, event_type: retried.eventType },
      });
    return retried;
  });
  if (!row)
    throw new AppError(
      "not_found",
      `Webhook endpoint '${endpoint.id}' has no delivery ${input.delivery_id}.`,
    );
  return presentDelivery(row);
}

/**
 * A `webhook.test` event for this endpoint alone, whatever it subscribes to: its data is the
 * endpoint's record. Sent by the senders like any other, within a poll.
 */
export async function sendTestEvent(ctx: WebhooksContext, id: string): Promise<WebhookDelivery> {
  const endpoint = await endpointRow(ctx, id);
  assertEnabled(endpoint);
  const now = ctx.clock.now().toISOString();
  const data = JSON.stringify(presentWebhook(endpoint));
  const row = await ctx.db.transaction(async (tx) => {
    const [sent] = await tx
      .insert(webhookDeliveries)
      .values({
        endpointId: endpoint.id,
        webhookId: NEW_WEBHOOK_ID,
        eventType: "webhook.test",
        body: eventBodySql("webhook.test", now, sql`${data}::json`),
        nextAttemptAt: new Date(now),
        createdAt: new Date(now),
      })
      .returning();
    const delivery = sent as WebhookDeliveryRow;
    await recordChange(tx, ctx, {
      at: new Date(now),
      action: "webhook.tested",
      target: `webhook:${endpoint.id}`,
      after: { delivery_id: delivery.id },
    });
    return delivery;
  });
  return presentDelivery(row);
}

/** How long the delivery log keeps a delivery once it is delivered or given up. */
export const DELIVERY_LOG_DAYS = 30;

export async function purgeOldDeliveries(db: WebhooksContext["db"], now: Date): Promise<void> {
  await db
    .delete(webhookDeliveries)
    .where(
      lt(webhookDeliveries.finishedAt, new Date(now.getTime() - DELIVERY_LOG_DAYS * 86_400_000)),
    );
}
