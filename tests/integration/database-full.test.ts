import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "@/db/client";
import { callerFor, problemOf } from "../helpers/context";
import { freePort } from "../helpers/server";
import {
  clusterAvailable,
  createThrowawayCluster,
  type ThrowawayCluster,
} from "../helpers/throwaway-cluster";

/**
 * PostgreSQL with every connection slot taken ("sorry, too many clients already", 53300) is a
 * database that cannot be used for now: 503 with Retry-After, as when it is down, not a 500.
 * Seen in CI, where other clients of the shared server took the slots during a chat burst.
 */
describe.skipIf(!clusterAvailable)("a PostgreSQL server out of connection slots", () => {
  let cluster: ThrowawayCluster | undefined;
  beforeAll(async () => {
    cluster = createThrowawayCluster(await freePort(), [
      "max_connections=3",
      "superuser_reserved_connections=0",
    ]);
  });
  afterAll(() => cluster?.destroy());

  it("answers 503 database_unavailable, and serves again once a slot is free", async () => {
    const url = cluster?.url as string;
    const setup = createDatabase({ kind: "postgres", url, maxConnections: 1 });
    await setup.migrate();
    await setup.close();

    const hog = postgres(url, { max: 3, onnotice: () => {} });
    const held = await Promise.all([1, 2, 3].map(() => hog.reserve()));
    const database = createDatabase({ kind: "postgres", url, maxConnections: 2 });
    try {
      expect(await problemOf(callerFor(database.db).agents.get({ aid: "anyone" }))).toMatchObject({
        status: 503,
        code: "database_unavailable",
        retry_after_s: 5,
      });
      for (const connection of held) connection.release();
      await hog.end();
      expect(await problemOf(callerFor(database.db).agents.get({ aid: "anyone" }))).toMatchObject({
        status: 404,
        code: "agent_not_found",
      });
    } finally {
      await hog.end({ timeout: 0 });
      await database.close();
    }
  });
});
