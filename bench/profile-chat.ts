/**
 * Profiles the chat path below HTTP: `chat.send` through the tRPC caller, 16 at a time.
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/profile-chat.ts
 * Uses PROFILE_DATABASE_URL (a PostgreSQL database it may write to; migrated on start).
 */
import { authKeys } from "@/server/auth";
import { createContextOf } from "@/server/frame/context";
import { startServices } from "@/server/frame/services";
import { createProcedureCaller } from "@/server/routers";

const url = process.env.PROFILE_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/agent_prof";
const key = "profile-key-0123456789abcdef";
const services = await startServices({
  ...process.env,
  DATABASE_URL: url,
  ADMIN_API_KEY: key,
  SCHEDULER: "off",
  LLM_MAX_CONCURRENCY: "1000",
});
const caller = createProcedureCaller(
  createContextOf({
    db: services.database.db,
    clock: services.clock,
    config: services.config,
    model: services.model,
    auth: authKeys(key),
    session: { role: "admin", via: "api_key" },
  }),
);
await caller.agents.upsert({
  aid: "profile",
  rate_limit_rpm: null,
  quota: { message_limit_daily: null, message_limit_monthly: null },
});

const total = Number(process.env.PROFILE_REQUESTS ?? 3000);
let started = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (started < total) {
      started++;
      await caller.chat.send({ aid: "profile", q: "hello", chat_id: "profile" });
    }
  }),
);
const ms = performance.now() - t0;
console.info(`chat.send: ${total} in ${ms.toFixed(0)} ms = ${((total / ms) * 1000).toFixed(0)}/s`);
await services.database.close();
