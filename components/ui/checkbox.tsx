import type { ComponentProps, ReactNode } from "react";
import styles from "./checkbox.module.css";
import { cx } from "./class-names";

/** A checkbox with its label beside it, the whole label clickable. */
export function Checkbox({
  label,
  className,
  ...props
}: Omit<ComponentProps<"input">, "type"> & { label: ReactNode }) {
  return (
    <label className={cx(styles.label, className)}>
      <input type="checkbox" className={styles.box} {...props} />
      {label}
    </label>
  );
}
