import { lt } from "drizzle-orm";
import type { Db } from "@/db/client";
import { chatRateLimits } from "@/db/schema";
import { AppError } from "@/server/frame/errors";

/**
 * Per-caller rate limits of chat: `rate_limit_rpm` chats in a window that opens with the
 * caller's first chat and lasts a minute (counted in the chat's opening statement,
 * server/chat/opening.ts). What callers are told, in headers and problems, is made here.
 */

export const RATE_WINDOW_MS = 60_000;

/** A caller's standing after a chat: what the X-RateLimit-* headers say. */
export type RateLimit = {
  /** Chats a minute allowed. */
  limit: number;
  remaining: number;
  /** Seconds until the window ends and `remaining` is back to `limit`. */
  resetS: number;
};

type Window = { count: number; startedMs: number | null };

/**
 * The standing after the opening: from the window as this chat counted it in, or, when the
 * window was full and counted nothing, as it was before (a full window that has not ended).
 */
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

/** The headers that tell a caller its standing, from the API's form of it. */
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

/** Deletes chat rate-limit windows long over (housekeeping). */
export async function purgeOldChatWindows(db: Db, now: Date): Promise<void> {
  await db
    .delete(chatRateLimits)
    .where(lt(chatRateLimits.windowStartedAt, new Date(now.getTime() - 2 * 60_000)));
}
