import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { initTRPC } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { relyingOn } from "../helpers/library";

/**
 * scripts/patch-trpc.mjs (run by `npm install`): the middleware chain of @trpc/server spreads
 * natively, as its source does, and a procedure call still gives every middleware and resolver
 * what tRPC documents.
 */

const dist = path.resolve(import.meta.dirname, "../../node_modules/@trpc/server/dist");

/** The text from `start` to `end`; fails where either is missing (the build changed). */
function between(source: string, start: string, end: string): string {
  const from = source.indexOf(start);
  const to = source.indexOf(end, from);
  expect(from, start).toBeGreaterThan(-1);
  expect(to, end).toBeGreaterThan(from);
  return source.slice(from, to);
}

describe("tRPC's middleware chain", () => {
  it("is patched in both of @trpc/server's builds: no spread helper left in the chain", () => {
    const chunks = readdirSync(dist).filter((name) => /^initTRPC-.*\.(mjs|cjs)$/.test(name));
    expect(chunks.map((name) => name.slice(-3)).sort()).toEqual(["cjs", "mjs"]);
    for (const chunk of chunks) {
      const source = readFileSync(path.join(dist, chunk), "utf8");
      expect(
        source,
        relyingOn(
          "@trpc/server",
          "scripts/patch-trpc.mjs",
          `the text the patch replaces in ${chunk}`,
        ),
      ).toContain("agent-service: native spreads");
      const validators = between(
        source,
        "function createInputMiddleware",
        "outputMiddleware._type",
      );
      const recursion = between(
        source,
        "async function callRecursive",
        "function createProcedureCaller",
      );
      expect(validators, chunk).not.toContain("_objectSpread2");
      expect(recursion, chunk).not.toContain("_objectSpread2");
    }
  });

  it("gives middlewares and the resolver the context, input, meta, path and signal as before", async () => {
    const t = initTRPC
      .context<{ base: string; [key: symbol]: string }>()
      .meta<{ tag: string }>()
      .create();
    const marked = Symbol("marked");
    const seen: Record<string, unknown>[] = [];
    const procedure = t.procedure
      .meta({ tag: "m" })
      .use(async ({ ctx, meta, path: at, type, signal, next }) => {
        seen.push({ ctx: { ...ctx }, meta, at, type, aborted: signal?.aborted });
        const result = await next({ ctx: { added: 1 } });
        return result;
      })
      .input(z.object({ a: z.string() }))
      .input(z.object({ b: z.number() }))
      .output(z.object({ echo: z.string(), added: z.number(), symbol: z.string() }))
      .use(async ({ input, next }) => {
        seen.push({ input });
        return next();
      })
      .mutation(({ ctx, input }) => ({
        echo: `${input.a}${input.b}`,
        added: ctx.added,
        symbol: ctx[marked] ?? "lost",
        extra: "dropped by the output's schema",
      }));
    const router = t.router({ ask: procedure });
    const caller = t.createCallerFactory(router)(
      { base: "b", [marked]: "kept" },
      { signal: new AbortController().signal },
    );
    await expect(caller.ask({ a: "x", b: 2 })).resolves.toEqual({
      echo: "x2",
      added: 1,
      symbol: "kept",
    });
    expect(seen).toEqual([
      {
        ctx: { base: "b", [marked]: "kept" },
        meta: { tag: "m" },
        at: "ask",
        type: "mutation",
        aborted: false,
      },
      { input: { a: "x", b: 2 } },
    ]);
    // A failure still passes through the chain as tRPC's error.
    await expect(caller.ask({ a: "x", b: "2" } as never)).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
  });
});
