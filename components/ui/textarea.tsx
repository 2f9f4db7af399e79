import type { ComponentProps } from "react";
import { cx } from "./class-names";
import control from "./control.module.css";
import styles from "./textarea.module.css";

/** `normal`: a few lines to start with; `compact`: as low as an input, growing by hand. */
export type TextareaHeight = "normal" | "compact";

/** A multi-line text input; `aria-invalid` marks it in error. */
export function Textarea({
  height = "normal",
  className,
  ...props
}: ComponentProps<"textarea"> & { height?: TextareaHeight }) {
  return <textarea className={cx(control.control, styles[height], className)} {...props} />;
}
