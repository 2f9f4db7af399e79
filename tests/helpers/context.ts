import type { Db } from "@/db/client";
import { type Clock, systemClock } from "@/server/clock";
import { type Config, parseConfig } from "@/server/config";
import { createInnerContext } from "@/server/context";
import { createCaller } from "@/server/routers/app";

export const testConfig = (env: Record<string, string> = {}): Config =>
  parseConfig({ DATA_DIR: "/nonexistent-test-data-dir", ...env });

/** A tRPC caller with no HTTP: admin unless told otherwise. */
export function callerFor(
  db: Db,
  {
    clock = systemClock,
    config = testConfig(),
    admin = true,
  }: { clock?: Clock; config?: Config; admin?: boolean } = {},
) {
  return createCaller(
    createInnerContext({
      db,
      clock,
      config,
      session: admin ? { role: "admin", via: "api_key" } : null,
    }),
  );
}
