import type { Db } from "@/db/client";
import { authKeys, type Session } from "@/server/auth";
import type { Caller } from "@/server/callers";
import { type Config, parseConfig } from "@/server/frame/config";
import { createContextOf } from "@/server/frame/context";
import { type Problem, problemFromError } from "@/server/frame/errors";
import { type Clock, systemClock } from "@/server/kit/clock";
import type { ModelRuntime } from "@/server/model-call";
import { createProcedureCaller } from "@/server/routers";

import { TEST_ADMIN_KEY } from "./admin-key";

export { TEST_ADMIN_KEY };

export const testConfig = (env: Record<string, string> = {}): Config =>
  parseConfig({ DATA_DIR: "/nonexistent-test-data-dir", ...env });

/** A tRPC caller with no HTTP: admin unless told otherwise. */
export function callerFor(
  db: Db,
  {
    clock = systemClock,
    config = testConfig(),
    admin = true,
    model,
    signal,
    caller,
    requestId,
    session,
  }: {
    clock?: Clock;
    config?: Config;
    admin?: boolean;
    /** Who asks, instead of the admin key's owner (a person's key, a wallet). */
    session?: Session;
    model?: ModelRuntime;
    signal?: AbortSignal;
    /** Who chats: the admin when admin, else one anonymous address, unless given. */
    caller?: Caller;
    /** The request's id, as X-Request-Id gives it over HTTP. */
    requestId?: string;
  } = {},
) {
  return createProcedureCaller(
    createContextOf({
      db,
      clock,
      config,
      model,
      auth: authKeys(TEST_ADMIN_KEY),
      session: session ?? (admin ? { role: "owner", via: "api_key" } : null),
      caller,
      requestId,
    }),
    { signal },
  );
}

/** The problem details a failed call turns into, as REST clients would see them. */
export async function problemOf(promise: Promise<unknown>): Promise<Problem> {
  try {
    await promise;
  } catch (error) {
    return problemFromError(error);
  }
  throw new Error("expected the call to fail");
}
