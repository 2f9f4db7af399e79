import { z } from "zod";

/**
 * The one place that changes how zod parses: a schema's `parseAsync` replaced by its synchronous
 * parse, which relies on zod throwing `$ZodAsyncError` from `parse` when a check is asynchronous.
 * tests/unit/parsed-synchronously.test.ts names zod's version when an upgrade breaks that.
 */

/**
 * The schema, made to validate synchronously for tRPC: tRPC calls `parseAsync`, and zod runs an
 * object's compiled parser only in a synchronous parse. A schema that turns out to need an
 * asynchronous check is parsed asynchronously from then on. Call it where the schema is handed
 * to `.input()` or `.output()`, as tRPC takes the parser then.
 */
export function parsedSynchronously<T extends z.ZodType>(schema: T): T {
  const parseAsync = schema.parseAsync.bind(schema);
  let synchronous = true;
  schema.parseAsync = async (data, params) => {
    if (synchronous) {
      try {
        return schema.parse(data, params);
      } catch (error) {
        if (!(error instanceof z.core.$ZodAsyncError)) throw error;
        synchronous = false;
      }
    }
    return parseAsync(data, params);
  };
  return schema;
}
