import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { chatInputSchema } from "@/server/chat";
import { parsedSynchronously } from "@/server/kit/zod-internals";
import { appRouter } from "@/server/routers";
import { relyingOn } from "../helpers/library";

/**
 * tRPC validates with `parseAsync`; `parsedSynchronously` makes that a synchronous parse (zod's
 * compiled object parser runs only there) with the same results and errors, and falls back to
 * the asynchronous parse for a schema that needs it.
 */
describe("parsedSynchronously", () => {
  const schema = () =>
    parsedSynchronously(
      z.strictObject({
        n: z.int().min(1),
        s: z.string().default("x"),
        o: z.object({ a: z.string() }),
      }),
    );

  it("parses synchronously, with the result and the errors of the asynchronous parse", async () => {
    const reference = z.strictObject({
      n: z.int().min(1),
      s: z.string().default("x"),
      o: z.object({ a: z.string() }),
    });
    const wrapped = schema();
    const parse = vi.spyOn(wrapped, "parse");
    for (const value of [
      { n: 1, o: { a: "a" } },
      { n: 0, o: { a: 1 } },
      { n: 1, o: { a: "a" }, extra: true },
      null,
    ]) {
      const expected = await reference.parseAsync(value).then(
        (result) => ({ result }),
        (error: z.ZodError) => ({ issues: error.issues, type: error.constructor }),
      );
      const actual = await wrapped.parseAsync(value).then(
        (result) => ({ result }),
        (error: z.ZodError) => ({ issues: error.issues, type: error.constructor }),
      );
      expect(
        actual,
        relyingOn(
          "zod",
          "server/kit/zod-internals.ts",
          "a synchronous parse with the results and errors of parseAsync",
        ),
      ).toStrictEqual(expected);
    }
    expect(parse).toHaveBeenCalledTimes(4);
  });

  it("falls back to the asynchronous parse for an asynchronous check, from then on", async () => {
    const check = vi.fn(async (value: string) => value !== "bad");
    const wrapped = parsedSynchronously(z.string().refine(check, "is bad"));
    const parse = vi.spyOn(wrapped, "parse");
    await expect(wrapped.parseAsync("good")).resolves.toBe("good");
    await expect(
      wrapped.parseAsync("bad"),
      relyingOn(
        "zod",
        "server/kit/zod-internals.ts",
        "parse throwing $ZodAsyncError for an asynchronous check",
      ),
    ).rejects.toThrow("is bad");
    expect(parse).toHaveBeenCalledTimes(1);
  });

  it("is what tRPC validates the chat's input with", async () => {
    const parse = vi.spyOn(chatInputSchema, "parse");
    const procedures = appRouter._def.procedures as unknown as Record<string, unknown>;
    const send = procedures["chat.send"] as (options: object) => Promise<unknown>;
    // A bad aid is refused by the input's validation, before anything needs a context.
    await expect(
      send({
        ctx: {},
        path: "chat.send",
        type: "mutation",
        getRawInput: async () => ({ aid: "!" }),
      }),
    ).rejects.toThrow();
    expect(parse).toHaveBeenCalledTimes(1);
    parse.mockRestore();
  });
});
