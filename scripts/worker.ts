/**
 * `npm run worker`: the scheduler alone, without the web server. Run any number of these
 * against one PostgreSQL (set SCHEDULER=off on the web instances); they share the schedule.
 */
import { ConfigError } from "@/server/config";
import { startServices } from "@/server/services";
import { installGracefulShutdown } from "@/server/shutdown";
import { reportStart, startScheduler } from "@/server/start-up";

try {
  // The worker exists to schedule, whatever SCHEDULER says for the web instances.
  const services = await startServices({ ...process.env, SCHEDULER: "on" });
  reportStart(services);
  installGracefulShutdown(services, startScheduler(services));
} catch (error) {
  console.error(error instanceof ConfigError ? `Worker cannot start. ${error.message}` : error);
  process.exit(1);
}
