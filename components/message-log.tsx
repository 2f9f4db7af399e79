"use client";

import { Fragment, type ReactNode, useEffect, useRef } from "react";
import styles from "./message-log.module.css";
import { ToolCalls, type ToolCallView } from "./tool-calls";
import { cx } from "./ui/class-names";
import { RelativeTime } from "./ui/relative-time";

export type LoggedMessage = {
  id: number | string;
  role: string;
  content: string;
  created_at?: string;
  /** The tool calls made before a reply, shown folded above it. */
  tool_calls?: ToolCallView[] | null;
};

/**
 * A conversation, oldest first, kept scrolled to the newest message as messages come in
 * (unless the reader has scrolled up to read). It takes focus, so keys scroll it too.
 */
export function MessageLog({
  label,
  messages,
  children,
  testId,
}: {
  label: string;
  messages: LoggedMessage[];
  /** What follows the stored messages: the exchange in progress, or an empty-thread note. */
  children?: ReactNode;
  testId?: string;
}) {
  const log = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  // After every render: a new message, a streamed word, a thread opened.
  useEffect(() => {
    const element = log.current;
    if (element && atBottom.current) element.scrollTop = element.scrollHeight;
  });
  return (
    <div
      ref={log}
      className={styles.log}
      role="log"
      aria-label={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable log must take focus so keyboards can scroll it (axe scrollable-region-focusable).
      tabIndex={0}
      data-testid={testId}
      onScroll={(event) => {
        const element = event.currentTarget;
        atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
      }}
    >
      {messages.map((m) => (
        <Fragment key={m.id}>
          <ToolCalls calls={m.tool_calls ?? []} />
          <MessageBubble from={m.role}>
            {m.content}
            {m.created_at && (
              <span className={styles.time}>
                {m.role === "user" ? "Asked" : "Answered"} <RelativeTime value={m.created_at} />
              </span>
            )}
          </MessageBubble>
        </Fragment>
      ))}
      {children}
    </div>
  );
}

/**
 * One message of a conversation: the user's on the right, the agent's on the left. Its role is
 * in `data-role` too.
 */
export function MessageBubble({
  from,
  testId,
  children,
}: {
  /** Whose message it is: `user` or `assistant`. */
  from: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <div className={cx(styles.message, styles[from])} data-role={from} data-testid={testId}>
      {children}
    </div>
  );
}
