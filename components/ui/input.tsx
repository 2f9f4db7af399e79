import type { ComponentProps } from "react";
import { cx } from "./class-names";
import styles from "./control.module.css";

/** How wide an input is: its container's width, or a short one beside other controls. */
export type InputWidth = "full" | "narrow";

/** A text input (any type but checkbox: that is Checkbox); `aria-invalid` marks it in error. */
export function Input({
  width = "full",
  className,
  ...props
}: Omit<ComponentProps<"input">, "width"> & { width?: InputWidth }) {
  return (
    <input
      className={cx(styles.control, width === "narrow" && styles.narrow, className)}
      {...props}
    />
  );
}
