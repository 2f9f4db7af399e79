import type { AnyRouter } from "@trpc/server";
import type { z } from "zod";
import type { ProcedureMeta } from "@/server/http";

/**
 * The one place that reads tRPC's internals: a router's procedures by their dotted path, and
 * each one's meta, input and output schemas, from `_def` (what tRPC's own OpenAPI adapters
 * read; tRPC has no public API for it). tests/unit/library-internals.test.ts checks each
 * assumption and names @trpc/server's version when an upgrade breaks one.
 */

export type ProcedureDefinition = {
  /** Its dotted path, e.g. `keys.list`. */
  name: string;
  type: "query" | "mutation" | "subscription";
  meta: ProcedureMeta;
  input: z.ZodObject | undefined;
  output: z.ZodType | undefined;
};

type Definition = {
  _def: {
    type: ProcedureDefinition["type"];
    meta?: ProcedureMeta;
    inputs: z.ZodObject[];
    output?: z.ZodType;
  };
};

/** Every procedure of the router, in the order its routers and procedures are declared. */
export function proceduresOf(router: AnyRouter): ProcedureDefinition[] {
  const procedures = router._def.procedures as Record<string, Definition>;
  return Object.entries(procedures).map(([name, procedure]) => ({
    name,
    type: procedure._def.type,
    meta: procedure._def.meta ?? {},
    input: procedure._def.inputs[0],
    output: procedure._def.output,
  }));
}
