import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";

/**
 * The generic plan PostgreSQL keeps for a statement prepared with parameters (after five runs
 * it may use it for every value), flattened to its nodes. The service's statements with
 * parameters are all prepared, so a plan made without the values is the one to check.
 */
export async function genericPlanNodes(db: Db, query: SQL): Promise<PlanNode[]> {
  const { sql: text, params } = new PgDialect({ casing: "snake_case" }).sqlToQuery(query);
  const literal = (value: unknown) =>
    typeof value === "number" ? String(value) : `'${String(value).replaceAll("'", "''")}'`;
  const plan = await db.transaction(async (tx) => {
    await tx.execute(sql.raw("SET LOCAL plan_cache_mode = force_generic_plan"));
    await tx.execute(sql.raw(`PREPARE generic_plan AS ${text}`));
    try {
      const explained = rowsOf<Record<string, unknown>>(
        await tx.execute(
          sql.raw(`EXPLAIN (FORMAT JSON) EXECUTE generic_plan(${params.map(literal).join(", ")})`),
        ),
      );
      const json = Object.values(explained[0] ?? {})[0];
      return (typeof json === "string" ? JSON.parse(json) : json) as { Plan: PlanNode }[];
    } finally {
      await tx.execute(sql.raw("DEALLOCATE generic_plan"));
    }
  });
  const nodes: PlanNode[] = [];
  const visit = (node: PlanNode) => {
    nodes.push(node);
    for (const child of node.Plans ?? []) visit(child);
  };
  for (const entry of plan) visit(entry.Plan);
  return nodes;
}

/** A node of EXPLAIN's JSON, with the fields the tests read. */
export type PlanNode = {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Plans?: PlanNode[];
};

/** An agent's row alone (no quota row, no keys): what the plan tests seed their rows under. */
export async function insertBareAgent(db: Db, aid: string): Promise<void> {
  await db.execute(sql`
    INSERT INTO agents (aid, name, autonomous_enabled, autonomous_minutes, created_at, updated_at)
    VALUES (${aid}, ${aid}, false, 60, now(), now())`);
}
