"use client";

import { useEffect, useState } from "react";
import styles from "./chat-panel.module.css";
import { MessageBubble } from "./message-log";
import { ToolCalls, type ToolCallView } from "./tool-calls";

/** The exchange on its way: the question, the tools called so far, the reply as it comes. */
export type PendingReply = {
  question: string;
  reply: string;
  tools: ToolCallView[];
  /** When it was sent (ms since 1970). */
  startedAt: number;
};

/**
 * The exchange in progress. Until the first words come the reply says it is waiting, and for
 * how long: a slow or failing model (the service tries a failing one again before it gives up)
 * shows as time passing, not as a bare ellipsis.
 */
export function PendingExchange({ pending }: { pending: PendingReply }) {
  return (
    <>
      <MessageBubble from="user">{pending.question}</MessageBubble>
      <ToolCalls calls={pending.tools} />
      <MessageBubble from="assistant" testId="streaming-reply">
        {pending.reply || (
          <span className={styles.waiting}>
            Waiting for the reply… <Elapsed since={pending.startedAt} />
          </span>
        )}
      </MessageBubble>
    </>
  );
}

/** Whole seconds since `since`, counted up every second. */
function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return <span>{Math.floor((now - since) / 1000)} s</span>;
}
