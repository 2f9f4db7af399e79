import { describe, expect, it } from "vitest";
import type { Session } from "@/server/auth";
import { proceduresOf } from "@/server/rest";
import { appRouter } from "@/server/routers";
import { callerFor, problemOf } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";

const ROLES = ["viewer", "operator", "owner"] as const;
const ACCESS = ["public", "wallet", ...ROLES];

/**
 * Issue #49, item 1, for the dashboard's side: every tRPC procedure declares who may call it (the
 * builder it is made with), and every procedure that needs an admin role is called here as each
 * role, as a wallet that is no admin, and as no one. Those below the role are refused (403, or
 * 401 for no one) before the procedure reads its input; the rest get past the check.
 */
describe.each(DATABASE_KINDS)("every procedure with every role on %s", (kind) => {
  const testDatabase = useTestDatabase(kind);
  const procedures = proceduresOf(appRouter);

  it("declares who may call each procedure", () => {
    const undeclared = procedures
      .filter((p) => !ACCESS.includes(p.meta.access as string))
      .map((p) => `${p.name}: ${String(p.meta.access)}`);
    expect(undeclared).toEqual([]);
    expect(procedures.filter((p) => p.meta.access === "owner").length).toBeGreaterThan(3);
    // A viewer writes nothing: what a viewer may call, it may only read.
    const viewerWrites = procedures.filter((p) => p.meta.access === "viewer" && p.type !== "query");
    expect(viewerWrites.map((p) => p.name)).toEqual([]);
  });

  it("refuses each role below the declared one, and only those", async () => {
    const wrong: string[] = [];
    const sessions: Array<[string, Session | undefined]> = [
      ["no one", undefined],
      [
        "a wallet",
        { role: "wallet", via: "wallet", address: "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4" },
      ],
      ...ROLES.map((role): [string, Session] => [
        role,
        { role, via: "personal_key", admin: "adm_000000000000", key: "000000000000" },
      ]),
    ];
    for (const procedure of procedures) {
      const needed = procedure.meta.access as (typeof ROLES)[number];
      if (!ROLES.includes(needed)) continue;
      for (const [who, session] of sessions) {
        const caller = callerFor(testDatabase().db, { admin: false, session });
        const call = procedure.name
          .split(".")
          .reduce<unknown>((at, part) => (at as Record<string, unknown>)[part], caller) as (
          input: unknown,
        ) => Promise<unknown>;
        // No input: an allowed call fails on its input, or does no harm with none.
        const status = await call(undefined).then(
          () => 200,
          async (error: unknown) => (await problemOf(Promise.reject(error))).status,
        );
        const allowed =
          session !== undefined &&
          session.role !== "wallet" &&
          ROLES.indexOf(session.role) >= ROLES.indexOf(needed);
        const expected = allowed ? "allowed" : session ? 403 : 401;
        if (expected === "allowed" ? status === 401 || status === 403 : status !== expected)
          wrong.push(`${procedure.name} (${needed}) as ${who}: ${status}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
