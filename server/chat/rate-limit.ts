import { lt } from "drizzle-orm";
import type { Db } from "@/db/client";
import { chatRateLimits } from "@/db/schema";
import { AppError } from "@/server/frame/errors";

// Per-caller chat rate limits: `rate_limit_rpm` chats in a window opened by the caller's first
// chat (counted in the opening statement, chat/opening.ts); what callers are told is made here.

export const RATE_WINDOW_MS = 60_000;

/** A caller's standing after a chat: what the X-RateLimit-* headers say. */
export type RateLimit = {
  limit: number;
  remaining: number;
  /** Seconds until the window ends and `remaining` is back to `limit`. */
  resetS: number;
};

type Window = { count: number; startedMs: number | null };

/** The standing after the opening: the window as this chat counted in it, or as it was if full. */
export function rateLimitAfter(
  limit: number,
  now: Date,
  { counted, prior }: { counted: Window | null; prior: Window | null },
): RateLimit {
  const window = counted ?? prior;
  if (!window || window.startedMs === null) return { limit, remaining: limit, resetS: 60 };
  const endsInMs = window.startedMs + RATE_WINDOW_MS - now.getTime();
  return {
    limit,
    remaining: counted ? Math.max(0, limit - counted.count) : 0,
    resetS: Math.max(1, Math.ceil(endsInMs / 1000)),
  };
}

export function rateLimitHeaders(
  rateLimit: { limit: number; remaining: number; reset_s: number } | null | undefined,
): Record<string, string> {
  if (!rateLimit) return {};
  return {
    "x-ratelimit-limit": String(rateLimit.limit),
    "x-ratelimit-remaining": String(rateLimit.remaining),
    "x-ratelimit-reset": String(rateLimit.reset_s),
  };
}

/** The standing as the API shows it (JSON replies, the stream's `start`, problems). */
export function presentRateLimit(rateLimit: RateLimit | null) {
  return rateLimit
    ? { limit: rateLimit.limit, remaining: rateLimit.remaining, reset_s: rateLimit.resetS }
    : null;
}

/** `error`, carrying the caller's standing so that its answer has the headers too. */
export function withRateLimit(error: unknown, rateLimit: RateLimit | null): unknown {
  if (!(error instanceof AppError) || !rateLimit) return error;
  return new AppError(error.code, error.detail, {
    ...error.extras,
    rate_limit: presentRateLimit(rateLimit),
  });
}

export async function purgeOldChatWindows(db: Db, now: Date): Promise<void> {
  await db
    .delete(chatRateLimits)
    .where(lt(chatRateLimits.windowStartedAt, new Date(now.getTime() - 2 * 60_000)));
}
