import { asc, count, eq } from "drizzle-orm";
import type { z } from "zod";
import { type WebhookEndpointRow, webhookEndpoints } from "@/db/schema";
import { type AuditSource, recordChange } from "@/server/audit";
import type { Config } from "@/server/frame/config";
import type { DataContext } from "@/server/frame/data-context";
import { AppError, invalidFields } from "@/server/frame/errors";
import type {
  createdWebhookSchema,
  createWebhookInputSchema,
  updateWebhookInputSchema,
  Webhook,
  webhookListSchema,
} from "./schema";
import { isEndpointId, newEndpointId, newSecret, sealSecret } from "./secrets";
import { urlProblem } from "./target";

export type WebhooksContext = DataContext &
  AuditSource & {
    config: Pick<Config, "webhooks">;
    auth: { webhookKey: Uint8Array };
  };

/** A bound on endpoints, and so on the deliveries one event can make. */
const MAX_ENDPOINTS = 100;

export function webhookNotFound(id: string): AppError {
  return new AppError("webhook_not_found", `There is no webhook endpoint '${id}'.`);
}

/** The URL if an endpoint may have it; else the 400 that names the field. */
function checkedUrl(ctx: WebhooksContext, given: string): string {
  const problem = urlProblem(new URL(given), ctx.config.webhooks.allowedHosts);
  if (!problem) return given;
  throw invalidFields([{ field: "url", detail: problem }]);
}

export function presentWebhook(row: WebhookEndpointRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events as Webhook["events"],
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    failing_since: row.failingSince?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function createWebhook(
  ctx: WebhooksContext,
  input: z.output<typeof createWebhookInputSchema>,
): Promise<z.output<typeof createdWebhookSchema>> {
  const url = checkedUrl(ctx, input.url);
  const [existing] = await ctx.db.select({ n: count() }).from(webhookEndpoints);
  if ((existing?.n ?? 0) >= MAX_ENDPOINTS)
    throw new AppError(
      "conflict",
      `There are ${MAX_ENDPOINTS} webhook endpoints already; delete one first.`,
    );
  const id = newEndpointId();
  const secret = newSecret();
  const now = ctx.clock.now();
  const created = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({
        id,
        url,
        description: input.description ?? null,
        events: input.events,
        secret: sealSecret(ctx.auth.webhookKey, secret, id),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    const shown = presentWebhook(row as WebhookEndpointRow);
    // The secret is shown once, to its maker, and never recorded.
    await recordChange(tx, ctx, {
      at: now,
      action: "webhook.created",
      target: target(id),
      after: shown,
    });
    return shown;
  });
  return { ...created, secret };
}

const target = (id: string) => `webhook:${id}`;

export async function listWebhooks({
  db,
}: Pick<WebhooksContext, "db">): Promise<z.output<typeof webhookListSchema>> {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  return { webhooks: rows.map(presentWebhook) };
}

export async function endpointRow(
  { db }: Pick<WebhooksContext, "db">,
  id: string,
): Promise<WebhookEndpointRow> {
  const [row] = isEndpointId(id)
    ? await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id))
    : [];
  if (!row) throw webhookNotFound(id);
  return row;
}

export async function getWebhook(ctx: Pick<WebhooksContext, "db">, id: string): Promise<Webhook> {
  return presentWebhook(await endpointRow(ctx, id));
}

/**
 * Changes the fields given. Enabling starts deliveries again (the pending ones are sent) and
 * forgets why it was disabled and since when it failed; disabling stops them, saying so.
 */
export async function updateWebhook(
  ctx: WebhooksContext,
  input: z.output<typeof updateWebhookInputSchema>,
): Promise<Webhook> {
  const now = ctx.clock.now();
  const enabling =
    input.enabled === true
      ? { enabled: true, disabledReason: null, failingSince: null }
      : input.enabled === false
        ? {
            enabled: false,
            disabledReason: `Disabled by an admin at ${now.toISOString()}; PATCH {"enabled": true} starts deliveries again.`,
          }
        : {};
  const url = input.url === undefined ? {} : { url: checkedUrl(ctx, input.url) };
  if (!isEndpointId(input.id)) throw webhookNotFound(input.id);
  return ctx.db.transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, input.id))
      .for("update");
    if (!before) throw webhookNotFound(input.id);
    const [row] = await tx
      .update(webhookEndpoints)
      .set({
        ...url,
        ...(input.events === undefined ? {} : { events: input.events }),
        ...(input.description === undefined ? {} : { description: input.description }),
        ...enabling,
        updatedAt: now,
      })
      .where(eq(webhookEndpoints.id, input.id))
      .returning();
    const after = presentWebhook(row as WebhookEndpointRow);
    await recordChange(tx, ctx, {
      at: now,
      action: "webhook.updated",
      target: target(input.id),
      before: presentWebhook(before),
      after,
    });
    return after;
  });
}

/** Deletes the endpoint and its delivery log; what was pending is not sent. */
export async function deleteWebhook(
  ctx: Pick<WebhooksContext, "db" | "clock"> & AuditSource,
  id: string,
): Promise<void> {
  if (!isEndpointId(id)) throw webhookNotFound(id);
  await ctx.db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(webhookEndpoints)
      .where(eq(webhookEndpoints.id, id))
      .returning();
    if (!deleted) throw webhookNotFound(id);
    await recordChange(tx, ctx, {
      at: ctx.clock.now(),
      action: "webhook.deleted",
      target: target(id),
      before: presentWebhook(deleted),
    });
  });
}

/**
 * A new secret, shown in this answer only; the old one signs nothing from now on (deliveries
 * pending are signed with the new one when they are sent).
 */
export async function rotateSecret(
  ctx: WebhooksContext,
  id: string,
): Promise<z.output<typeof createdWebhookSchema>> {
  const secret = newSecret();
  if (!isEndpointId(id)) throw webhookNotFound(id);
  const now = ctx.clock.now();
  const shown = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(webhookEndpoints)
      .set({ secret: sealSecret(ctx.auth.webhookKey, secret, id), updatedAt: now })
      .where(eq(webhookEndpoints.id, id))
      .returning();
    if (!row) throw webhookNotFound(id);
    // That it changed, never what it is.
    await recordChange(tx, ctx, {
      at: now,
      action: "webhook.secret_rotated",
      target: target(id),
    });
    return presentWebhook(row);
  });
  return { ...shown, secret };
}
