import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agents } from "@/db/schema";
import { problemOf } from "../helpers/context";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";

/**
 * The safety net behind the schemas: text the database refuses to store (the NUL character) is
 * the client's 400, not a 500, even when no schema caught it. The driver's error reaches
 * problemFromError as the cause of drizzle's "Failed query" error.
 */
describe.each(DATABASE_KINDS)("text the database cannot store, on %s", (kind) => {
  const database = useTestDatabase(kind);

  it("is a 400 bad_request, not a 500", async () => {
    const now = new Date();
    const insert = database()
      .db.insert(agents)
      .values({ aid: "nul-\u0000-agent", name: "x", createdAt: now, updatedAt: now });
    expect(await problemOf(insert)).toMatchObject({ status: 400, code: "bad_request" });
    const select = database().db.execute(sql`SELECT ${"a\u0000b"}::text`);
    expect(await problemOf(select)).toMatchObject({ status: 400, code: "bad_request" });
  });
});
