import { createThrowawayPostgres, type DatabaseKind } from "./database-kinds";
import { type FakeOpenAi, startFakeOpenAi } from "./fake-openai";
import { type RunningServer, startServer } from "./server";

/** The built service on `kind` (a throwaway PostgreSQL database, or PGlite), with a fake model. */
export type ModelServer = {
  server: RunningServer;
  fake: FakeOpenAi;
  /** The throwaway PostgreSQL database's URL; undefined on PGlite. */
  databaseUrl?: string;
  stop(): Promise<void>;
};

export async function startModelServer(
  kind: DatabaseKind,
  env: Record<string, string> = {},
): Promise<ModelServer> {
  const fake = await startFakeOpenAi();
  const throwaway = kind === "postgres" ? await createThrowawayPostgres() : undefined;
  const server = await startServer({
    ...(throwaway ? { DATABASE_URL: throwaway.url } : {}),
    LLM_BASE_URL: fake.baseUrl,
    LLM_API_KEY: "sk-test",
    ...env,
  });
  return {
    server,
    fake,
    ...(throwaway ? { databaseUrl: throwaway.url } : {}),
    stop: async () => {
      await server.stop();
      await fake.close();
      await throwaway?.drop();
    },
  };
}

/**
 * On PostgreSQL, a second instance on the same database and model, one worker each as
 * `running`'s should be: what one answers, the other reads and cancels. Undefined on PGlite.
 */
export async function startOtherInstance(
  running: ModelServer,
  env: Record<string, string> = {},
): Promise<RunningServer | undefined> {
  if (!running.databaseUrl) return undefined;
  return startServer({
    DATABASE_URL: running.databaseUrl,
    WEB_CONCURRENCY: "1",
    LLM_BASE_URL: running.fake.baseUrl,
    LLM_API_KEY: "sk-test",
    SCHEDULER: "off",
    ...env,
  });
}
