import { describe, expect, it } from "vitest";
import { z } from "zod";
import { proceduresOf } from "@/server/rest";
import { appRouter } from "@/server/routers";
import { relyingOn } from "../helpers/library";

/**
 * What server/rest/trpc-internals.ts reads of tRPC's router: every procedure by its dotted path,
 * in the order declared, with its type, its meta (merged from its builder's), and its schemas.
 */
const reads = (what: string) => relyingOn("@trpc/server", "server/rest/trpc-internals.ts", what);

describe("tRPC's router, as the operation table reads it", () => {
  const procedures = proceduresOf(appRouter);
  const byName = new Map(procedures.map((procedure) => [procedure.name, procedure]));

  it("lists every procedure by its dotted path, in the order the routers declare them", () => {
    expect(procedures.length, reads("router._def.procedures by dotted path")).toBeGreaterThan(40);
    const names = procedures.map((procedure) => procedure.name);
    expect(names.indexOf("agentKeys.create"), reads("the declared order")).toBeLessThan(
      names.indexOf("agentKeys.list"),
    );
  });

  it("gives each procedure its type, merged meta and schemas", () => {
    const list = byName.get("agentKeys.list");
    expect(list?.type, reads("_def.type")).toBe("query");
    expect(list?.meta, reads("_def.meta, the builder's merged with the procedure's")).toMatchObject(
      {
        access: "viewer",
        rest: { method: "GET", path: "/agents/{aid}/keys" },
      },
    );
    expect(list?.input, reads("_def.inputs[0], the input's schema")).toBeInstanceOf(z.ZodObject);
    expect(list?.output, reads("_def.output, the output's schema")).toBeInstanceOf(z.ZodType);
    expect(byName.get("chat.send")?.meta.access, reads("_def.meta")).toBe("public");
  });
});
