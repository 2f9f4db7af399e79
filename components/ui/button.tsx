import Link from "next/link";
import type { ComponentProps } from "react";
import styles from "./button.module.css";
import { cx } from "./class-names";

/** `danger` is an outlined button in the danger colour; `danger-filled`, the confirming one. */
export type ButtonVariant = "default" | "primary" | "danger" | "danger-filled" | "link";
export type ButtonSize = "normal" | "small";

type Look = { variant?: ButtonVariant; size?: ButtonSize };

function buttonClass({ variant = "default", size = "normal" }: Look, className?: string) {
  return cx(styles.button, styles[variant], size === "small" && styles.small, className);
}

/**
 * A button. Its `type` is "button" unless another is given, so that no button submits a form
 * by accident: a form's submit button says `type="submit"`.
 */
export function Button({
  variant,
  size,
  className,
  type = "button",
  ...props
}: ComponentProps<"button"> & Look) {
  return <button type={type} className={buttonClass({ variant, size }, className)} {...props} />;
}

/**
 * A plain link that looks like a button, for an address that is no page of the app (a server
 * route that redirects, such as "Sign in with SSO"): the browser loads it whole.
 */
export function AnchorButton({ variant, size, className, ...props }: ComponentProps<"a"> & Look) {
  return <a className={buttonClass({ variant, size }, className)} {...props} />;
}

/** A link that looks like a button: for an action that opens a page ("New agent"). */
export function ButtonLink({
  variant,
  size,
  className,
  ...props
}: ComponentProps<typeof Link> & Look) {
  return <Link className={buttonClass({ variant, size }, className)} {...props} />;
}
