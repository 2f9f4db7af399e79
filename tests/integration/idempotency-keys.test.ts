import { describe, expect, it } from "vitest";
import {
  claimKey,
  keepAnswer,
  purgeOldIdempotencyKeys,
  releaseClaim,
  releaseEveryClaim,
} from "@/server/idempotency";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";

const T0 = new Date("2026-11-29T09:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
// As the REST layer passes it with LLM_TIMEOUT_MS at 120 s: a claim older is a dead process's.
const STALE_MS = 150_000;
const answer = { status: 201, headers: { "content-type": "application/json" }, body: "{}" };

/**
 * The store behind Idempotency-Key: one claim of many at once, a claim a dead process left taken
 * over only for the same request, its late end fenced off, and a day's answer replayed.
 */
describe.each(DATABASE_KINDS)("Idempotency-Key claims on %s", (kind) => {
  const testDatabase = useTestDatabase(kind);
  const claim = (key: string, fingerprint: string, now = T0, caller = "admin") =>
    claimKey(testDatabase().db, {
      caller,
      key,
      fingerprint,
      now,
      staleBefore: new Date(now.getTime() - STALE_MS),
    });

  it("gives one of fifty requests at once the claim, and the others what it made", async () => {
    const claims = await Promise.all(Array.from({ length: 50 }, () => claim("k1", "f")));
    const won = claims.filter((c) => c.kind === "claimed");
    expect(won).toHaveLength(1);
    expect(claims.filter((c) => c.kind === "in_flight")).toHaveLength(49);
    expect(await claim("k1", "other")).toEqual({ kind: "other_request" });
    const [first] = won as [{ kind: "claimed"; claim: string }];
    await keepAnswer(
      testDatabase().db,
      { caller: "admin", key: "k1", claim: first.claim },
      answer,
      T0,
    );
    expect(await claim("k1", "f", at(23 * HOUR))).toEqual({ kind: "answered", answer });
    expect(await claim("k1", "other", at(23 * HOUR))).toEqual({ kind: "other_request" });
    // Each caller has keys of its own.
    expect((await claim("k1", "f", T0, "key:abc")).kind).toBe("claimed");
  });

  it("takes over a claim a dead process left, for the same request only, fencing the old end", async () => {
    const left = await claim("k2", "f");
    expect(left.kind).toBe("claimed");
    expect(await claim("k2", "f", at(STALE_MS - 1))).toEqual({ kind: "in_flight" });
    expect(await claim("k2", "other", at(STALE_MS + 1))).toEqual({ kind: "other_request" });
    const retried = await claim("k2", "f", at(STALE_MS + 1));
    expect(retried.kind).toBe("claimed");
    // The first process's late end neither answers nor frees the key its successor holds.
    const old = { caller: "admin", key: "k2", claim: (left as { claim: string }).claim };
    await keepAnswer(testDatabase().db, old, { ...answer, body: "late" }, at(STALE_MS + 2));
    await releaseClaim(testDatabase().db, old);
    expect(await claim("k2", "f", at(STALE_MS + 3))).toEqual({ kind: "in_flight" });
    await keepAnswer(
      testDatabase().db,
      { ...old, claim: (retried as { claim: string }).claim },
      answer,
      at(STALE_MS + 4),
    );
    expect(await claim("k2", "f", at(STALE_MS + 5))).toEqual({ kind: "answered", answer });
  });

  it("gives a released key to the next request, and a day-old one to any", async () => {
    const first = await claim("k3", "f");
    await releaseClaim(testDatabase().db, {
      caller: "admin",
      key: "k3",
      claim: (first as { claim: string }).claim,
    });
    const second = await claim("k3", "f");
    expect(second.kind).toBe("claimed");
    await keepAnswer(
      testDatabase().db,
      { caller: "admin", key: "k3", claim: (second as { claim: string }).claim },
      answer,
      T0,
    );
    expect((await claim("k3", "other", at(24 * HOUR + 1))).kind).toBe("claimed");
  });

  it("purges answers past a day, and frees every claim at the embedded database's start", async () => {
    const kept = await claim("k4", "f");
    await keepAnswer(
      testDatabase().db,
      { caller: "admin", key: "k4", claim: (kept as { claim: string }).claim },
      answer,
      T0,
    );
    await claim("k5", "f", at(24 * HOUR));
    await purgeOldIdempotencyKeys(testDatabase().db, at(24 * HOUR + 1));
    expect((await claim("k4", "other", at(24 * HOUR + 2))).kind).toBe("claimed");
    expect(await claim("k5", "f", at(24 * HOUR + 2))).toEqual({ kind: "in_flight" });
    expect(await releaseEveryClaim(testDatabase().db)).toBeGreaterThanOrEqual(2);
    expect((await claim("k5", "f", at(24 * HOUR + 3))).kind).toBe("claimed");
  });
});
