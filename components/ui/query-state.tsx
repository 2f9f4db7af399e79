"use client";

import { type ReactNode, useState } from "react";
import { Button } from "./button";
import { Notice } from "./notice";
import { problemOf } from "./problem";
import styles from "./query-state.module.css";
import { RelativeTime } from "./relative-time";

/** What a TanStack query gives that these states need. */
type QueryLike<T> = {
  data: T | undefined;
  error: unknown;
  isPending: boolean;
  refetch: () => unknown;
  /** When the data shown was loaded (ms since 1970): said under a failed refresh. */
  dataUpdatedAt?: number;
};

export function Loading({ what }: { what: string }) {
  return (
    <p className={styles.loading} role="status" aria-busy="true">
      Loading {what}…
    </p>
  );
}

/**
 * A failure with its sentence and a Retry button, disabled while the retry it started runs. Not
 * while the query refreshes by itself: during an outage it does so every few seconds, and the
 * button would hardly ever be usable. It says what the page does about it only where that is
 * true: that it tries again by itself (a query does, when no answer came), that Retry is there,
 * and, when data from before is still shown, how old it is.
 */
export function ErrorNotice({
  error,
  what,
  onRetry,
  loadedAt,
}: {
  error: unknown;
  what?: string;
  onRetry?: () => unknown;
  loadedAt?: number;
}) {
  const [retrying, setRetrying] = useState(false);
  const problem = problemOf(error);
  // Trying again helps when the service or the network failed, not when the answer was a no.
  const retryable = problem.unreachable || (problem.status ?? 500) >= 500;
  const canRetry = Boolean(onRetry) && retryable;
  const retry = async () => {
    setRetrying(true);
    try {
      await onRetry?.();
    } finally {
      setRetrying(false);
    }
  };
  return (
    <Notice
      variant="error"
      action={
        canRetry && (
          <Button onClick={retry} disabled={retrying}>
            {retrying ? "Retrying…" : "Retry"}
          </Button>
        )
      }
    >
      {what ? `Could not load ${what}. ` : ""}
      {problem.detail}
      {problem.unreachable && onRetry
        ? " This page tries again by itself every few seconds, or use Retry."
        : canRetry
          ? " Retry may help."
          : ""}
      {loadedAt ? (
        <>
          {" "}
          What is shown was loaded <RelativeTime value={new Date(loadedAt).toISOString()} />.
        </>
      ) : null}
    </Notice>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="muted empty">{children}</p>;
}

/**
 * The three states every query shows the same way: loading, an error with Retry, or empty;
 * otherwise its data. Data already shown stays when a later refresh fails, with the error above.
 */
export function QueryState<T>({
  query,
  what,
  isEmpty,
  empty,
  children,
  afterError,
}: {
  query: QueryLike<T>;
  /** Shown under an error that left nothing to show (a way back, for a thing not found). */
  afterError?: ReactNode;
  /** What is loading, for the sentences: "agents", "the agent". */
  what: string;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.data === undefined) {
    if (query.error)
      return (
        <>
          <ErrorNotice error={query.error} what={what} onRetry={query.refetch} />
          {afterError}
        </>
      );
    return <Loading what={what} />;
  }
  return (
    <>
      {query.error ? (
        <ErrorNotice
          error={query.error}
          what={what}
          onRetry={query.refetch}
          loadedAt={query.dataUpdatedAt}
        />
      ) : null}
      {isEmpty?.(query.data) ? <Empty>{empty}</Empty> : children(query.data)}
    </>
  );
}
