import type { ComponentProps } from "react";
import { cx } from "./class-names";
import styles from "./control.module.css";

/** How wide a select is: its container's width, or as wide as its longest option. */
export type SelectWidth = "full" | "auto";

/** A select; `aria-invalid` marks it in error. */
export function Select({
  width = "full",
  className,
  ...props
}: ComponentProps<"select"> & { width?: SelectWidth }) {
  return (
    <select className={cx(styles.control, width === "auto" && styles.auto, className)} {...props} />
  );
}
