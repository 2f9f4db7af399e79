"use client";

import { formatAbsolute, formatRelative } from "./dates";
import { useNow } from "./use-now";

/**
 * A time as people say it ("5 minutes ago", "in 3 hours"), with the exact time and the time
 * zone on hover (and for screen readers, which read the title of a `time`).
 */
export function RelativeTime({ value, prefix }: { value: string; prefix?: string }) {
  const now = useNow();
  const exact = formatAbsolute(value);
  return (
    <time dateTime={value} title={exact} className="relative-time">
      {prefix ? `${prefix} ` : ""}
      {formatRelative(value, now)}
    </time>
  );
}

/** A relative time, or a word for none (`never`, `—`). */
export function MaybeTime({ value, none = "never" }: { value: string | null; none?: string }) {
  return value ? <RelativeTime value={value} /> : <span className="muted">{none}</span>;
}
