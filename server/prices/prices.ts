import { asc, eq, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { type ModelPriceRow, modelPrices } from "@/db/schema";
import { type AuditSource, recordChange } from "@/server/audit";
import type { Config } from "@/server/frame/config";
import type { DataContext } from "@/server/frame/data-context";
import { AppError } from "@/server/frame/errors";
import type { listPricesOutputSchema, priceSchema, setPriceInputSchema } from "./schema";

// A reply is priced by the statement that stores it, at that moment's price; a model with no
// price gives replies whose cost is null, not 0.

type PricesContext = DataContext;

/** More models than any installation prices; a bound on what the table can hold. */
const MAX_PRICES = 10_000;

export async function listPrices({
  db,
}: PricesContext): Promise<z.output<typeof listPricesOutputSchema>> {
  const rows = await db
    .select()
    .from(modelPrices)
    .orderBy(asc(modelPrices.model))
    .limit(MAX_PRICES);
  return { prices: rows.map(presentPrice) };
}

export async function setPrice(
  { db: outer, clock, ...source }: PricesContext & AuditSource,
  input: z.output<typeof setPriceInputSchema>,
): Promise<z.output<typeof priceSchema>> {
  return outer.transaction(async (db) => {
    const [before] = await db
      .select()
      .from(modelPrices)
      .where(eq(modelPrices.model, input.model))
      .for("update");
    const after = await upsertPrice(db, clock.now(), input);
    const shown = before && presentPrice(before);
    // The same price again is no change: MODEL_PRICES, written at every start, adds no entry.
    if (
      shown?.input_per_million === after.input_per_million &&
      shown.output_per_million === after.output_per_million
    )
      return after;
    await recordChange(db, source, {
      at: new Date(after.updated_at),
      action: "price.set",
      target: `price:${input.model}`,
      before: shown || null,
      after,
    });
    return after;
  });
}

async function upsertPrice(
  db: Db,
  now: Date,
  input: z.output<typeof setPriceInputSchema>,
): Promise<z.output<typeof priceSchema>> {
  const values = {
    model: input.model,
    inputPerMillion: input.input_per_million,
    outputPerMillion: input.output_per_million,
    updatedAt: now,
  };
  // The bound is checked in the statement: a new model is added only while there is room.
  const result = await db.execute(sql`
    INSERT INTO ${modelPrices} (model, input_per_million, output_per_million, updated_at)
    SELECT ${values.model}, ${values.inputPerMillion}, ${values.outputPerMillion},
      ${values.updatedAt.toISOString()}::timestamptz
    WHERE (SELECT count(*) FROM ${modelPrices}) < ${MAX_PRICES}
      OR EXISTS (SELECT 1 FROM ${modelPrices} WHERE model = ${values.model})
    ON CONFLICT (model) DO UPDATE SET input_per_million = EXCLUDED.input_per_million,
      output_per_million = EXCLUDED.output_per_million, updated_at = EXCLUDED.updated_at
    RETURNING model`);
  if (rowsOf(result).length === 0)
    throw new AppError(
      "conflict",
      `The price table holds ${MAX_PRICES.toLocaleString("en")} models already; delete some first.`,
    );
  return presentPrice({ ...values });
}

export async function deletePrice(
  { db, clock, ...source }: PricesContext & AuditSource,
  model: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [deleted] = await tx.delete(modelPrices).where(eq(modelPrices.model, model)).returning();
    if (!deleted) throw new AppError("not_found", `Model '${model}' has no price to delete.`);
    await recordChange(tx, source, {
      at: clock.now(),
      action: "price.deleted",
      target: `price:${model}`,
      before: presentPrice(deleted),
    });
  });
}

/** Writes MODEL_PRICES into the table at start-up (each instance alike: the same upserts). */
export async function applyConfiguredPrices(
  ctx: PricesContext,
  prices: Config["modelPrices"],
): Promise<number> {
  const entries = Object.entries(prices);
  for (const [model, price] of entries)
    await setPrice(ctx, {
      model,
      input_per_million: price.input,
      output_per_million: price.output,
    });
  return entries.length;
}

function presentPrice(row: ModelPriceRow): z.output<typeof priceSchema> {
  return {
    model: row.model,
    input_per_million: Number(row.inputPerMillion),
    output_per_million: Number(row.outputPerMillion),
    updated_at: row.updatedAt.toISOString(),
  };
}
