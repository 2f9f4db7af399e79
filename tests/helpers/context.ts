import type { Db } from "@/db/client";
import type { ChatRuntime } from "@/server/chat/chat";
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
    chat,
    signal,
  }: {
    clock?: Clock;
    config?: Config;
    admin?: boolean;
    chat?: ChatRuntime;
    signal?: AbortSignal;
  } = {},
) {
  return createCaller(
    createInnerContext({
      db,
      clock,
      config,
      chat,
      session: admin ? { role: "admin", via: "api_key" } : null,
    }),
    { signal },
  );
}
