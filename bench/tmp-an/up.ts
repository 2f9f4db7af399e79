import { writeFileSync } from "node:fs";
import { createDatabase } from "../../db/client";
import { startServer } from "../../tests/helpers/server";
import { createThrowawayDatabase } from "../../tests/helpers/throwaway-postgres";
import { createLoadAgent } from "../load-agent";
import { startChild } from "../processes";

const database = await createThrowawayDatabase(process.env.TEST_DATABASE_URL as string, "an");
const migrated = createDatabase({ kind: "postgres", url: database.url });
await migrated.migrate();
await migrated.close();
const fake = await startChild("bench/fake-model.ts");
const llm = { LLM_BASE_URL: fake.url, LLM_API_KEY: "sk-bench" };
const service = await startServer({
  DATABASE_URL: database.url,
  SCHEDULER: "off",
  WEB_CONCURRENCY: "1",
  ...llm,
  ...(process.env.EXTRA ? JSON.parse(process.env.EXTRA) : {}),
});
const baseline = await startChild("bench/baseline-process.ts", {
  BASELINE_DATABASE_URL: database.url,
  ...llm,
});
await createLoadAgent(service.url, {
  aid: "cpu",
  model: process.env.MODEL || "fake-t200-w20-l250",
});
writeFileSync(
  "/tmp/an-up.json",
  JSON.stringify({
    service: service.url,
    servicePid: service.pid,
    baseline: baseline.url,
    baselinePid: baseline.pid,
    fake: fake.url,
  }),
);
console.log("up");
const stop = async () => {
  await service.stop();
  await baseline.stop();
  await fake.stop();
  await database.drop();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
setInterval(() => {}, 1e6);
