import { createThrowawayPostgres, type DatabaseKind } from "./database-kinds";
import { type RunningServer, startServer } from "./server";

/**
 * The built service on `kind`: PGlite in its own data directory, or a throwaway PostgreSQL
 * database dropped when it stops.
 */
export async function startServerOn(
  kind: DatabaseKind,
  env: Record<string, string> = {},
): Promise<RunningServer> {
  const throwaway = kind === "postgres" ? await createThrowawayPostgres() : undefined;
  const server = await startServer(throwaway ? { DATABASE_URL: throwaway.url, ...env } : env);
  return {
    ...server,
    stop: async () => {
      await server.stop();
      await throwaway?.drop();
    },
  };
}
