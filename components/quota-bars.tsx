import type { Quota } from "@/server/quota/schema";
import {
  limitShare,
  limitTone,
  type QuotaLimit,
  type QuotaLimitId,
  quotaLimits,
  tightestLimit,
} from "@/server/quota/view";
import styles from "./quota-bars.module.css";
import { cx } from "./ui/class-names";
import { formatNumber, formatPercent } from "./ui/format";

const LABELS: Record<QuotaLimitId, string> = {
  message_count_daily: "Msgs/day",
  message_count_monthly: "Msgs/month",
  message_count_total: "Msgs total",
  autonomous_count_monthly: "Runs/month",
  autonomous_count_total: "Runs total",
  tokens_daily: "Tokens/day",
  tokens_monthly: "Tokens/month",
  tokens_total: "Tokens total",
};

const TOKEN_LIMITS: QuotaLimitId[] = ["tokens_daily", "tokens_monthly", "tokens_total"];

/**
 * A count against its limit as the browser's meter, coloured by our rule (limitTone): green,
 * amber from 80%, red at the limit. The colour is the meter's class, not its low and high
 * bounds, whose regions differ between browsers at the edges. An unlimited count shows an
 * empty meter.
 */
function Bar({ limit: counted, withShare = false }: { limit: QuotaLimit; withShare?: boolean }) {
  const { id, count, limit } = counted;
  const label = LABELS[id];
  const share = limit === null ? "" : ` · ${formatPercent(limitShare(counted))}`;
  const text = `${formatNumber(count)} / ${limit === null ? "∞" : formatNumber(limit)}`;
  return (
    <div className={styles.bar}>
      <span>{label}</span>
      <meter
        className={cx(styles.meter, styles[limitTone(counted)])}
        min={0}
        max={limit === null || limit === 0 ? 1 : limit}
        value={limit === null ? 0 : limit === 0 ? 1 : Math.min(count, limit)}
        aria-label={`${label}: ${limit === null ? `${formatNumber(count)}, no limit` : `${text}${share}`}`}
      />
      <span className={styles.value} data-testid={id}>
        {text}
        {withShare && share}
      </span>
    </div>
  );
}

/** An agent's limits as labelled meters: the five counters; with `withTokens`, the budgets too. */
export function QuotaBars({ quota, withTokens = false }: { quota: Quota; withTokens?: boolean }) {
  const limits = quotaLimits(quota).filter(
    (limit) => withTokens || !TOKEN_LIMITS.includes(limit.id),
  );
  return (
    <div className={styles.bars}>
      {limits.map((limit) => (
        <Bar key={limit.id} limit={limit} />
      ))}
    </div>
  );
}

/**
 * The limit nearest to stopping an agent, of its eight, named, as one meter with its share: a
 * row of the agents list stays one line high, and says which limit its quota use is of.
 */
export function TightestLimit({ quota }: { quota: Quota }) {
  const tightest = tightestLimit(quota);
  return (
    <div className={styles.bars} data-testid="quota-use">
      {tightest ? (
        <Bar limit={tightest} withShare />
      ) : (
        <span className="muted small-text">no limits</span>
      )}
    </div>
  );
}
