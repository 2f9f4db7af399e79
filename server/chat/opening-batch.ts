import { PgTransaction } from "drizzle-orm/pg-core";
import type { Db } from "@/db/client";
import { mayBeOneRowsDoing } from "@/db/failures";
import type { ChatConfig } from "@/server/frame/config";
import { type Batcher, batcher } from "@/server/kit/batches";
import type { Clock } from "@/server/kit/clock";
import type { OpeningKind } from "./admission-statement";
import { type OpeningRequest, openingStatement, openingValues } from "./opening-statement";

type OpeningRow = Awaited<ReturnType<ReturnType<typeof openingStatement>["execute"]>>[number];

/** An opening's row (none if there is no such agent) and the time it was opened at. */
export type Opened = { row: OpeningRow | undefined; now: Date };

type Config = Pick<ChatConfig, "historyMessages" | "historyMaxChars">;

type Batches = Map<string, Batcher<OpeningRequest, Opened>>;

const batches = new WeakMap<Db, WeakMap<Clock, Batches>>();

/** Opens chats of `kind`, those a process opens at once in one statement (server/kit/batches.ts). */
export function opener(
  { db, clock }: { db: Db; clock: Clock },
  kind: OpeningKind,
  config: Config,
): (request: OpeningRequest) => Promise<Opened> {
  const openAll = async (requests: OpeningRequest[]): Promise<Opened[]> => {
    const now = clock.now();
    const statement = openingStatement(db, kind, requests.length > 1);
    const rows = await statement.execute(openingValues(requests, now, config));
    // A row for each request whose agent exists, by its place (`n`, from 1).
    const byPlace = new Map(rows.map((row) => [row.n, row]));
    return requests.map((_, i) => ({ row: byPlace.get(i + 1), now }));
  };
  if (db instanceof PgTransaction)
    return async (request) => (await openAll([request]))[0] as Opened;
  let byClock = batches.get(db);
  if (!byClock) {
    byClock = new WeakMap();
    batches.set(db, byClock);
  }
  let byKey = byClock.get(clock);
  if (!byKey) {
    byKey = new Map();
    byClock.set(clock, byKey);
  }
  const key = `${kind}:${config.historyMessages}:${config.historyMaxChars}`;
  let batch = byKey.get(key);
  if (!batch) {
    batch = batcher({
      run: openAll,
      group: () => key,
      max: 32,
      inFlight: 1,
      alone: mayBeOneRowsDoing,
    });
    byKey.set(key, batch);
  }
  const opening = batch;
  // A caller's later chats with a rate-limited agent wait for the next statement, each counted
  // in its window in turn, beside the other chats of the process (a lone one is never deferred).
  return async (request) => {
    for (;;) {
      const opened = await opening.add(request);
      if (!opened.row?.deferred) return opened;
    }
  };
}
