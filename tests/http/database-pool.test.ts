import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThrowawayPostgres, TEST_DATABASE_URL } from "../helpers/database-kinds";
import { type RunningServer, startServer, TEST_ADMIN_KEY } from "../helpers/server";

const POOL = 2;
const WORKERS = 2;

/**
 * DATABASE_POOL_SIZE bounds the connections each web process opens to PostgreSQL, so an
 * instance of WEB_CONCURRENCY workers opens at most their product (the README's sizing rule).
 */
describe.skipIf(!TEST_DATABASE_URL)("DATABASE_POOL_SIZE", () => {
  let server: RunningServer | undefined;
  let throwaway: { url: string; drop(): Promise<void> } | undefined;
  let monitor: postgres.Sql | undefined;
  beforeAll(async () => {
    throwaway = await createThrowawayPostgres();
    server = await startServer({
      DATABASE_URL: throwaway.url,
      DATABASE_POOL_SIZE: String(POOL),
      WEB_CONCURRENCY: String(WORKERS),
      SCHEDULER: "off",
    });
    monitor = postgres(throwaway.url, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await monitor?.end();
    await server?.stop();
    await throwaway?.drop();
  });

  it("keeps a burst of requests within the pool, and answers them all", async () => {
    const url = (server as RunningServer).url;
    const connections = async () => {
      const [row] = await (monitor as postgres.Sql)`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name LIKE 'agent-service-%'`;
      return row?.n as number;
    };
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, await connections());
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const statuses = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const response = await fetch(`${url}/agents`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${TEST_ADMIN_KEY}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ aid: `pooled-${i}` }),
        });
        return response.status;
      }),
    );
    sampling = false;
    await sampler;
    expect(statuses.filter((status) => status !== 201)).toEqual([]);
    // More than one worker's pool: both workers served the burst, each within its own pool.
    expect(most).toBeGreaterThan(POOL);
    expect(most).toBeLessThanOrEqual(POOL * WORKERS);
  });
});
