import type { Quota } from "@/server/quota/schema";
import styles from "./quota-bars.module.css";
import { formatNumber } from "./ui/format";

type Bar = {
  label: string;
  id: string;
  count: (q: Quota) => number;
  limit: (q: Quota) => number | null;
};

const counter = (label: string, count: keyof Quota & `${string}_count_${string}`): Bar => ({
  label,
  id: count,
  count: (q) => q[count],
  limit: (q) => q[count.replace("_count_", "_limit_") as keyof Quota] as number | null,
});

const MESSAGE_BARS: Bar[] = [
  counter("Msgs/day", "message_count_daily"),
  counter("Msgs/month", "message_count_monthly"),
  counter("Msgs total", "message_count_total"),
  counter("Runs/month", "autonomous_count_monthly"),
  counter("Runs total", "autonomous_count_total"),
];

/** Token budgets bound input + output tokens. */
const tokens = (label: string, period: "daily" | "monthly" | "total"): Bar => ({
  label,
  id: `tokens_${period}`,
  count: (q) => q[`input_tokens_${period}`] + q[`output_tokens_${period}`],
  limit: (q) => q[`token_limit_${period}`],
});

const TOKEN_BARS: Bar[] = [
  tokens("Tokens/day", "daily"),
  tokens("Tokens/month", "monthly"),
  tokens("Tokens total", "total"),
];

/**
 * A count against its limit as the browser's meter: green, amber from 80%, red at the limit
 * (a limit of 0 is reached at once). An unlimited count shows an empty meter.
 */
function meterOf(count: number, limit: number | null) {
  if (limit === null) return { max: 1, value: 0, low: 0.5, high: 0.75 };
  if (limit === 0) return { max: 1, value: 1, low: 0.5, high: 0.75 };
  // Counts are whole numbers: the half keeps 80% and 100% on the coloured side of each bound.
  return { max: limit, value: Math.min(count, limit), low: 0.8 * limit - 0.5, high: limit - 0.5 };
}

/**
 * The five quota counters against their limits, each as a labelled meter; with `withTokens`,
 * the token budgets too.
 */
export function QuotaBars({ quota, withTokens = false }: { quota: Quota; withTokens?: boolean }) {
  const bars = withTokens ? [...MESSAGE_BARS, ...TOKEN_BARS] : MESSAGE_BARS;
  return (
    <div className={styles.bars}>
      {bars.map((bar) => {
        const count = bar.count(quota);
        const limit = bar.limit(quota);
        const text = `${formatNumber(count)} / ${limit === null ? "∞" : formatNumber(limit)}`;
        return (
          <div className={styles.bar} key={bar.id}>
            <span>{bar.label}</span>
            <meter
              min={0}
              optimum={0}
              {...meterOf(count, limit)}
              aria-label={`${bar.label}: ${limit === null ? `${formatNumber(count)}, no limit` : text}`}
            />
            <span className={styles.value} data-testid={bar.id}>
              {text}
            </span>
          </div>
        );
      })}
    </div>
  );
}
