/**
 * The baseline (bench/baseline.ts) as a process of its own, for the model rows: its CPU time
 * and memory can then be read from /proc as the service's are, and autocannon does not share
 * its event loop.
 *
 *   BASELINE_DATABASE_URL=postgres://… LLM_BASE_URL=http://…/v1 LLM_API_KEY=… \
 *     node --import tsx bench/baseline-process.ts
 *
 * Prints its URL as the first line on stdout; ends on SIGTERM, SIGINT or when the IPC channel
 * to the benchmark closes. Without LLM_BASE_URL it chats with the echo model, as in-process.
 */
import { startBaseline } from "./baseline";

const databaseUrl = process.env.BASELINE_DATABASE_URL;
if (!databaseUrl) throw new Error("BASELINE_DATABASE_URL is not set");
const baseUrl = process.env.LLM_BASE_URL;
const baseline = await startBaseline(databaseUrl, {
  llm: baseUrl
    ? {
        baseUrl,
        apiKey: process.env.LLM_API_KEY ?? "",
        // The service's defaults (LLM_MODEL, LLM_MAX_OUTPUT_TOKENS).
        defaultModel: "gpt-4o-mini",
        maxOutputTokens: 1024,
      }
    : undefined,
});

const stop = async () => {
  await Promise.race([baseline.close(), new Promise((resolve) => setTimeout(resolve, 5000))]);
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
process.once("disconnect", stop);

process.stdout.write(`${baseline.url}\n`);
