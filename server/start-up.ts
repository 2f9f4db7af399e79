import { ConfigError } from "@/server/config";
import { getServices } from "@/server/services";

export async function startUp(): Promise<void> {
  try {
    const { adminKey, database, config } = await getServices();
    const where =
      database.kind === "pglite"
        ? `embedded PGlite in ${config.dataDir}/pglite`
        : "PostgreSQL (DATABASE_URL)";
    console.info(`Agent Service: database ready (${where}).`);
    if (adminKey.generated) {
      console.info(
        `Agent Service: generated an admin API key and stored it in ${adminKey.file} (mode 600).`,
      );
      // Shown once, and only on an interactive terminal: never into a log shipped elsewhere.
      if (process.stdout.isTTY) console.info(`Agent Service: admin API key: ${adminKey.key}`);
    } else if (adminKey.source === "file") {
      console.info(`Agent Service: admin API key is in ${adminKey.file}.`);
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Agent Service cannot start. ${error.message}`);
      process.exit(1);
    }
    // The database may come up later: requests retry the start and /health reports it meanwhile.
    console.error("Agent Service: start-up failed; will retry on the next request:", error);
  }
}
