import type { ReactNode } from "react";

/** The outcome of something the user did: an error reads as one, and a success as one. */
export type Outcome = { ok: boolean; text: string };

export function OutcomeMessage({ outcome }: { outcome: Outcome | undefined }) {
  if (!outcome) return <span role="status" className="sr-only" />;
  return outcome.ok ? (
    <span role="status" className="outcome ok">
      {outcome.text}
    </span>
  ) : (
    <span role="alert" className="outcome error">
      {outcome.text}
    </span>
  );
}

/**
 * A failure that keeps part of a page from working: its sentence, then what the user can do
 * about it (Retry, Reload, a switch), read out at once by screen readers.
 */
export function ErrorAlert({
  children,
  action,
  testId,
}: {
  children: ReactNode;
  action?: ReactNode;
  testId?: string;
}) {
  return (
    <div className="notice error" role="alert" data-testid={testId}>
      <span>{children}</span>
      {action}
    </div>
  );
}
