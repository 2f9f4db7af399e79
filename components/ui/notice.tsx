import type { ComponentProps, ReactNode } from "react";
import { cx } from "./class-names";
import styles from "./notice.module.css";

/**
 * What a notice says: `error`, a failure that keeps part of a page from working (read out at
 * once by screen readers); `info`, news of something done (an agent created, a key made);
 * `ok`, a success; `neutral`, a plain fact (no wallet in this browser).
 */
export type NoticeVariant = "error" | "info" | "ok" | "neutral";

/**
 * A boxed message, then what the user can do about it (`action`: Retry, Reload, a switch).
 * An error is an alert; the others are a status, read out when they appear.
 */
export function Notice({
  variant = "neutral",
  action,
  testId,
  className,
  children,
  ...props
}: ComponentProps<"div"> & { variant?: NoticeVariant; action?: ReactNode; testId?: string }) {
  return (
    <div
      className={cx(styles.notice, styles[variant], className)}
      role={variant === "error" ? "alert" : "status"}
      data-testid={testId}
      {...props}
    >
      {action ? (
        <>
          <span>{children}</span>
          {action}
        </>
      ) : (
        children
      )}
    </div>
  );
}

/**
 * A sentence saying what failed, in the danger colour, under what it is about (a form, a
 * panel). Give it `role="alert"` when it appears after something the user did.
 */
export function ErrorText({ className, ...props }: ComponentProps<"p">) {
  return <p className={cx(styles.errorText, className)} {...props} />;
}

/** The outcome of something the user did: an error reads as one, and a success as one. */
export type Outcome = { ok: boolean; text: string };

export function OutcomeMessage({ outcome }: { outcome: Outcome | undefined }) {
  if (!outcome) return <span role="status" className="sr-only" />;
  return outcome.ok ? (
    <span role="status" className={styles.outcomeOk}>
      {outcome.text}
    </span>
  ) : (
    <span role="alert" className={styles.errorText}>
      {outcome.text}
    </span>
  );
}
