import {
  Column,
  getTableColumns,
  getTableName,
  type InferSelectModel,
  is,
  noopDecoder,
  SQL,
  Subquery,
  type Table,
} from "drizzle-orm";
import { toSnakeCase } from "drizzle-orm/casing";
import type postgres from "postgres";

/**
 * A prepared statement's rows mapped by a plan made once, not by drizzle's `mapResultRow`, which
 * works every field out again for every row; tests/integration/drizzle-internals.test.ts compares them.
 */

type OrderedField = { path: string[]; field: unknown };
type Decoder = { mapFromDriverValue(value: unknown): unknown };

type Step = {
  /** The objects this step makes, in the order `mapResultRow` would: [object, parent, key]. */
  opens: [number, number, string][];
  node: number;
  key: string;
  decoder: Decoder;
  decode: Decoder["mapFromDriverValue"] | undefined;
  /** For a table's column at depth two under nullable joins: the object and its table. */
  join?: { objectName: string; tableName: string };
};

type PreparedRows = {
  fields?: OrderedField[];
  joinsNotNullableMap?: Record<string, boolean>;
  customResultMapper?: (rows: unknown[][]) => unknown;
};

/** Gives a prepared query a row mapper made from its fields now, unless it has no fields or one. */
export function mapRowsByPlan<T>(query: T): T {
  const target = query as PreparedRows;
  if (!Array.isArray(target.fields) || target.customResultMapper) return query;
  const mapRow = rowMapper(target.fields, target.joinsNotNullableMap);
  target.customResultMapper = (rows) => rows.map(mapRow);
  return query;
}

/** The mapper of one selection: `mapResultRow(fields, row, joinsNotNullableMap)`, planned once. */
export function rowMapper(
  fields: OrderedField[],
  joinsNotNullableMap: Record<string, boolean> | undefined,
): (row: unknown[]) => Record<string, unknown> {
  // Each nested object by its path, numbered as first met; 0 is the row itself.
  const objects = new Map<string, number>([["", 0]]);
  const steps: Step[] = fields.map(({ path, field }) => {
    const isColumn = is(field, Column);
    const opens: Step["opens"] = [];
    let node = 0;
    for (let depth = 0; depth < path.length - 1; depth++) {
      const at = JSON.stringify(path.slice(0, depth + 1));
      let object = objects.get(at);
      if (object === undefined) {
        object = objects.size;
        objects.set(at, object);
        opens.push([object, node, path[depth] as string]);
      }
      node = object;
    }
    const decoder = decoderOf(field, isColumn);
    const decode = decoder.mapFromDriverValue;
    const step: Step = {
      opens,
      node,
      key: path[path.length - 1] as string,
      decoder,
      decode: IDENTITY.has(decode) ? undefined : decode,
    };
    if (joinsNotNullableMap && isColumn && path.length === 2) {
      step.join = {
        objectName: path[0] as string,
        tableName: getTableName((field as Column).table),
      };
    }
    return step;
  });
  const joined = steps.some((step) => step.join !== undefined);
  const count = objects.size;

  return (row) => {
    const nodes: Record<string, unknown>[] = new Array(count);
    const result: Record<string, unknown> = {};
    nodes[0] = result;
    // Per object, its table's name while every column of it so far was null, else false.
    const nullify: Record<string, string | false> | undefined = joined ? {} : undefined;
    for (let index = 0; index < steps.length; index++) {
      const step = steps[index] as Step;
      for (const [object, parent, key] of step.opens) {
        const made = {};
        nodes[object] = made;
        (nodes[parent] as Record<string, unknown>)[key] = made;
      }
      const raw = row[index];
      const value =
        raw === null || step.decode === undefined ? raw : step.decode.call(step.decoder, raw);
      (nodes[step.node] as Record<string, unknown>)[step.key] = value;
      if (nullify && step.join) {
        const { objectName, tableName } = step.join;
        if (!(objectName in nullify)) nullify[objectName] = value === null ? tableName : false;
        else if (typeof nullify[objectName] === "string" && nullify[objectName] !== tableName)
          nullify[objectName] = false;
      }
    }
    if (nullify && joinsNotNullableMap) {
      for (const [objectName, tableName] of Object.entries(nullify)) {
        if (typeof tableName === "string" && !joinsNotNullableMap[tableName])
          result[objectName] = null;
      }
    }
    return result;
  };
}

const IDENTITY = new Set<unknown>([
  Column.prototype.mapFromDriverValue,
  noopDecoder.mapFromDriverValue,
]);

/** The field's decoder, as `mapResultRow` picks it (an SQL's `decoder` is internal to drizzle). */
function decoderOf(field: unknown, isColumn: boolean): Decoder {
  if (isColumn) return field as Decoder;
  const decoder = (sql: SQL) => (sql as unknown as { decoder: Decoder }).decoder;
  if (is(field, SQL)) return decoder(field);
  if (is(field, Subquery)) return decoder(field._.sql);
  // An aliased SQL (`sql\`…\`.as(name)`).
  return decoder((field as SQL.Aliased).sql);
}

/**
 * A transaction's client that drizzle's migrator takes for a whole database: the transaction it
 * opens (`client.begin`) is this one, so that the migrations run under the caller's lock. Drizzle
 * sets its parsers in the client's `options`, which only the client itself carries.
 */
export function inTransaction(tx: postgres.TransactionSql, client: postgres.Sql): postgres.Sql {
  const begin = (callback: (sql: postgres.TransactionSql) => unknown) => callback(tx);
  return new Proxy(tx, {
    get: (target, property, receiver) =>
      property === "begin"
        ? begin
        : property === "options"
          ? client.options
          : Reflect.get(target, property, receiver),
  }) as unknown as postgres.Sql;
}

/**
 * A table's row from its JSON (`to_json(t)`, keys named as the columns), each value decoded as
 * drizzle decodes that column's: one JSON column is cheaper for PostgreSQL to send through a
 * plan than a column for each field (server/chat's opening).
 */
export function rowFromJson<T extends Table>(table: T, json: unknown): InferSelectModel<T> | null {
  if (json === null || json === undefined) return null;
  const fields = (typeof json === "string" ? JSON.parse(json) : json) as Record<string, unknown>;
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    // As the schema's snake_case casing names it in the database (db/client.ts).
    const value = fields[column.keyAsName ? toSnakeCase(column.name) : column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as InferSelectModel<T>;
}
