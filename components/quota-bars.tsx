import type { Quota } from "@/server/agents/schema";

const BARS = [
  ["Msgs/day", "message_count_daily", "message_limit_daily"],
  ["Msgs/month", "message_count_monthly", "message_limit_monthly"],
  ["Msgs total", "message_count_total", "message_limit_total"],
  ["Runs/month", "autonomous_count_monthly", "autonomous_limit_monthly"],
  ["Runs total", "autonomous_count_total", "autonomous_limit_total"],
] as const;

/** Severity of a count against its limit: colours a bar as it nears the limit. */
export function usageLevel(count: number, limit: number | null): "ok" | "warn" | "danger" {
  if (limit === null) return "ok";
  if (limit === 0 || count >= limit) return "danger";
  return count / limit >= 0.8 ? "warn" : "ok";
}

/** The five quota counters against their limits, each as a labelled meter. */
export function QuotaBars({ quota }: { quota: Quota }) {
  return (
    <div className="bars">
      {BARS.map(([label, countKey, limitKey]) => {
        const count = quota[countKey];
        const limit = quota[limitKey];
        const ratio = limit === null ? 0 : limit === 0 ? 1 : Math.min(1, count / limit);
        const text = `${count.toLocaleString("en")} / ${limit === null ? "∞" : limit.toLocaleString("en")}`;
        return (
          <div className="bar" key={countKey}>
            <span>{label}</span>
            <meter
              className="sr-only"
              min={0}
              max={limit ?? count}
              value={count}
              aria-label={`${label}: ${text}`}
            />
            <div className="bar-track" aria-hidden="true">
              <div
                className={`bar-fill ${usageLevel(count, limit)}`}
                style={{ width: `${ratio * 100}%` }}
              />
            </div>
            <span className="bar-value" data-testid={countKey}>
              {text}
            </span>
          </div>
        );
      })}
    </div>
  );
}
