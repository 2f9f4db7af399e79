import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Quota } from "@/server/quota/schema";
import { limitShare, limitTone, quotaUse, tightestLimit } from "@/server/quota/view";

/** What the dashboard computes from an agent's quota: the tightest limit, and meters' colours. */

const quota = (fields: Partial<Quota> = {}): Quota => ({
  message_count_total: 0,
  message_limit_total: null,
  message_count_monthly: 0,
  message_limit_monthly: null,
  message_count_daily: 0,
  message_limit_daily: null,
  autonomous_count_total: 0,
  autonomous_limit_total: null,
  autonomous_count_monthly: 0,
  autonomous_limit_monthly: null,
  input_tokens_total: 0,
  output_tokens_total: 0,
  cost_total: 0,
  token_limit_total: null,
  input_tokens_monthly: 0,
  output_tokens_monthly: 0,
  cost_monthly: 0,
  token_limit_monthly: null,
  input_tokens_daily: 0,
  output_tokens_daily: 0,
  cost_daily: 0,
  token_limit_daily: null,
  last_message_at: null,
  last_autonomous_at: null,
  daily_resets_at: "2026-11-26T00:00:00.000Z",
  monthly_resets_at: "2026-12-01T00:00:00.000Z",
  ...fields,
});

describe("a meter's colour", () => {
  it("is amber from exactly 80% of the limit and red at it", () => {
    expect(limitTone({ count: 2, limit: 3 })).toBe("ok");
    expect(limitTone({ count: 4, limit: 5 })).toBe("warn");
    expect(limitTone({ count: 79, limit: 100 })).toBe("ok");
    expect(limitTone({ count: 80, limit: 100 })).toBe("warn");
    expect(limitTone({ count: 3, limit: 3 })).toBe("danger");
    expect(limitTone({ count: 9, limit: 5 })).toBe("danger");
    expect(limitTone({ count: 0, limit: 0 })).toBe("danger");
    expect(limitTone({ count: 1_000_000, limit: null })).toBe("ok");
  });

  it("is amber exactly when the share is 80% or more (the filter's line)", () => {
    fc.assert(
      fc.property(fc.nat(10_000), fc.integer({ min: 1, max: 10_000 }), (count, limit) => {
        const tone = limitTone({ count, limit });
        const share = limitShare({ count, limit });
        if (count >= limit) expect(tone).toBe("danger");
        else expect(tone === "warn").toBe(Math.floor((count * 10_000) / limit) >= 8_000);
        expect(share).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe("an agent's tightest limit", () => {
  it("is a token budget when that is what stops the agent", () => {
    const capped = quota({
      message_count_daily: 1,
      message_limit_daily: 100,
      input_tokens_daily: 30,
      output_tokens_daily: 20,
      token_limit_daily: 5,
    });
    expect(tightestLimit(capped)).toEqual({ id: "tokens_daily", count: 50, limit: 5 });
    expect(quotaUse(capped)).toBe(1);
  });

  it("is none for an agent without limits, and its use is what the tightest says", () => {
    expect(tightestLimit(quota())).toBeUndefined();
    expect(quotaUse(quota())).toBe(0);
    const some = quota({
      message_count_monthly: 40,
      message_limit_monthly: 50,
      autonomous_count_total: 2,
      autonomous_limit_total: 3,
    });
    const tightest = tightestLimit(some);
    expect(tightest?.id).toBe("message_count_monthly");
    expect(quotaUse(some)).toBe(limitShare(tightest as NonNullable<typeof tightest>));
  });
});
