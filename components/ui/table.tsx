import type { ComponentProps } from "react";
import { cx } from "./class-names";
import styles from "./table.module.css";

/**
 * How a table fits a phone: `cards` makes each row a card whose cells are labelled by their
 * column (each Td's `label`); `scroll` keeps the table and lets it scroll sideways in its own
 * box; `plain` keeps it as it is, for tables narrow enough anyway.
 */
export type TableLayout = "cards" | "plain" | "scroll";

/**
 * A data table. `fixed`: the columns keep the widths their headers give (Th's `className`)
 * instead of following their content. A table inside an `aria-busy` box (a page loading)
 * is dimmed.
 */
export function Table({
  layout = "plain",
  fixed = false,
  scrollLabel,
  className,
  ...props
}: ComponentProps<"table"> & {
  layout?: TableLayout;
  fixed?: boolean;
  /** With `scroll`: names the box the table scrolls in, which takes focus so keys scroll it. */
  scrollLabel?: string;
}) {
  const table = (
    <table
      className={cx(
        styles.table,
        layout === "cards" && styles.cards,
        fixed && styles.fixed,
        className,
      )}
      {...props}
    />
  );
  return layout === "scroll" ? (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls must take focus so keyboards can scroll it (axe scrollable-region-focusable).
    <section className={styles.scroll} aria-label={scrollLabel} tabIndex={0}>
      {table}
    </section>
  ) : (
    table
  );
}

/** How a column is ordered now, for a sortable header. */
export type SortDirection = "ascending" | "descending";

/**
 * A header cell. With `onSort` it is a button that orders the table by its column, and says
 * (`aria-sort`, an arrow) which way the table is ordered when `sorted` is set. `numeric`
 * aligns it with its column of numbers.
 */
export function Th({
  numeric = false,
  sorted,
  onSort,
  className,
  children,
  ...props
}: ComponentProps<"th"> & {
  numeric?: boolean;
  sorted?: SortDirection;
  onSort?: () => void;
}) {
  return (
    <th
      className={cx(styles.th, numeric && styles.numeric, className)}
      aria-sort={onSort ? sorted : undefined}
      {...props}
    >
      {onSort ? (
        <button type="button" className={styles.sort} onClick={onSort}>
          {children}
          {sorted === "ascending" ? " ↑" : sorted === "descending" ? " ↓" : ""}
        </button>
      ) : (
        children
      )}
    </th>
  );
}

/**
 * A data cell. `label` names its column on a phone, where a `cards` table shows each row as a
 * card (an empty label: a cell of actions that needs none); the label is text of its own there
 * (hidden from screen readers, which have the table's headers), beside the cell's content in a
 * box of its own, or above it with `stacked` (content that needs the card's width, a meter).
 * `numeric` right-aligns a number with tabular figures, on one line.
 */
export function Td({
  label,
  numeric = false,
  stacked = false,
  className,
  children,
  ...props
}: ComponentProps<"td"> & { label?: string; numeric?: boolean; stacked?: boolean }) {
  return (
    <td
      className={cx(styles.td, numeric && styles.numeric, stacked && styles.stacked, className)}
      data-label={label}
      {...props}
    >
      {label ? (
        <>
          <span className={styles.label} aria-hidden="true">
            {label}
          </span>
          <div className={styles.value}>{children}</div>
        </>
      ) : (
        children
      )}
    </td>
  );
}
