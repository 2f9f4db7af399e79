/**
 * `npm run worker`: the scheduler (and the housekeeping and webhook sender every instance runs)
 * alone, without the web server. Run any number of these
 * against one PostgreSQL (set SCHEDULER=off on the web instances); they share the schedule.
 * Without DATABASE_URL it refuses to start: the embedded database (PGlite) belongs to one
 * process, the web server, whose own scheduler runs the schedule there.
 */
import { ConfigError, parseConfig } from "@/server/frame/config";
import { startServices } from "@/server/frame/services";
import { installGracefulShutdown } from "@/server/frame/shutdown";
import { reportStart, startBackgroundWork, startScheduler } from "@/server/frame/start-up";

try {
  // The worker exists to schedule, whatever SCHEDULER says for the web instances.
  const env = { ...process.env, SCHEDULER: "on" };
  if (!parseConfig(env).databaseUrl) {
    throw new ConfigError(
      "DATABASE_URL is not set. `npm run worker` is for several processes sharing one " +
        "PostgreSQL; the embedded database (PGlite) is one process's, and there the web " +
        "server's own scheduler runs autonomous agents (SCHEDULER=on, the default): run " +
        "`npm start` alone, or set DATABASE_URL for both.",
    );
  }
  const services = await startServices(env);
  reportStart(services);
  const { sender } = startBackgroundWork(services);
  installGracefulShutdown(services, { scheduler: startScheduler(services), sender });
} catch (error) {
  console.error(error instanceof ConfigError ? `Worker cannot start. ${error.message}` : error);
  process.exit(1);
}
