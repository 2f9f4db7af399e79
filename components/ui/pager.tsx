import { Button } from "./button";
import { formatNumber } from "./format";
import styles from "./pager.module.css";
import { Select } from "./select";

export const PAGE_SIZES = [25, 50, 100] as const;

/**
 * Paging controls with where the page sits in the whole: `26–50 of 126 agents · page 2 of 6`.
 * While a page loads the buttons are off, so two quick clicks cannot skip a page.
 */
export function Pager({
  noun,
  page,
  pageSize,
  shown,
  total,
  hasPrevious,
  hasNext,
  busy,
  onPrevious,
  onNext,
  onPageSize,
}: {
  noun: string;
  page: number;
  pageSize: number;
  shown: number;
  total: number | undefined;
  hasPrevious: boolean;
  hasNext: boolean;
  busy: boolean;
  onPrevious: () => void;
  onNext: () => void;
  onPageSize?: (size: number) => void;
}) {
  const first = (page - 1) * pageSize + 1;
  const last = (page - 1) * pageSize + shown;
  const pages = total === undefined ? undefined : Math.max(1, Math.ceil(total / pageSize));
  return (
    <nav className={styles.pager} aria-label={`Pages of ${noun}`}>
      <span className={styles.position} aria-live="polite" data-testid="pager-position">
        {busy
          ? "Loading…"
          : shown === 0
            ? `0 ${noun}`
            : `${formatNumber(first)}–${formatNumber(last)}${
                total === undefined ? "" : ` of ${formatNumber(total)}`
              } ${noun} · page ${formatNumber(page)}${
                pages === undefined ? "" : ` of ${formatNumber(pages)}`
              }`}
      </span>
      <span className={styles.buttons}>
        <Button onClick={onPrevious} disabled={busy || !hasPrevious}>
          Previous page
        </Button>
        <Button onClick={onNext} disabled={busy || !hasNext}>
          Next page
        </Button>
      </span>
      {onPageSize && (
        <span className={styles.size}>
          <label htmlFor={`${noun}-page-size`}>Per page</label>
          <Select
            width="auto"
            id={`${noun}-page-size`}
            value={pageSize}
            onChange={(event) => onPageSize(Number(event.target.value))}
          >
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </Select>
        </span>
      )}
    </nav>
  );
}
