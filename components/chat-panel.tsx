"use client";

import { type FormEvent, type KeyboardEvent, useEffect, useRef, useState } from "react";
import { CHAT_ID_PATTERN } from "@/server/threads/schema";
import styles from "./chat-panel.module.css";
import { PendingExchange, type PendingReply } from "./chat-pending";
import { MessageLog } from "./message-log";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { Input } from "./ui/input";
import { LeaveGuard } from "./ui/leave-guard";
import { ErrorText } from "./ui/notice";
import { Panel } from "./ui/panel";
import { problemOf } from "./ui/problem";
import { ErrorNotice } from "./ui/query-state";
import { Select } from "./ui/select";
import { Textarea } from "./ui/textarea";

/**
 * Talk to an agent as the admin: the admin's own threads (threads belong to their caller), the
 * chosen one's messages, and replies streamed as they come. While a reply is on its way the
 * chat says so (and for how long), Stop ends it, and leaving the page asks first: a reply not
 * delivered is not kept, and its question is not counted. A question that was not answered goes
 * back in the box.
 */
export function ChatPanel({ aid }: { aid: string }) {
  const utils = trpc.useUtils();
  const [chatId, setChatId] = useState("default");
  const [draft, setDraft] = useState("");
  const [pending, setPending] = useState<PendingReply>();
  const [error, setError] = useState<string>();
  const [stopped, setStopped] = useState(false);
  /** The calls the last reply waits on (its turn paused for approvals), as "tool (server)". */
  const [waiting, setWaiting] = useState<string[]>([]);
  const stream = useRef<AbortController>(undefined);
  const field = useRef<HTMLTextAreaElement>(null);
  const threads = trpc.threads.list.useQuery({ aid, caller: "admin" });
  const messages = trpc.threads.messages.useQuery({ aid, chat_id: chatId, limit: 100 });

  // A page left mid-reply ends the reply with it, rather than reading it unseen.
  useEffect(() => () => stream.current?.abort(), []);
  // Text typed before the page hydrated stays in the field while the state is "" (React keeps
  // the field's text): taken, so that Send is enabled and sends what the reader sees.
  useEffect(() => {
    const typed = field.current?.value ?? "";
    if (typed) setDraft((current) => current || typed);
  }, []);

  async function send(event?: FormEvent) {
    event?.preventDefault();
    const question = (field.current?.value ?? draft).trim();
    if (!question || pending) return;
    const controller = new AbortController();
    stream.current = controller;
    setError(undefined);
    setStopped(false);
    setWaiting([]);
    setDraft("");
    setPending({ question, reply: "", tools: [], startedAt: Date.now() });
    let answered = false;
    try {
      const events = await utils.client.chat.stream.mutate(
        { aid, q: question, chat_id: chatId },
        { signal: controller.signal },
      );
      for await (const chatEvent of untilStopped(events, controller.signal)) {
        if (chatEvent.type === "done") answered = true;
        if (chatEvent.type === "delta") {
          setPending((current) => current && { ...current, reply: current.reply + chatEvent.text });
        } else if (chatEvent.type === "done" && chatEvent.status === "requires_approval") {
          setWaiting(chatEvent.approvals.map((a) => `${a.tool} (${a.server})`));
          void utils.approvals.list.invalidate({ aid });
        } else if (chatEvent.type === "tool_call" || chatEvent.type === "tool_result") {
          const { type: _, ...call } = chatEvent;
          setPending(
            (current) =>
              current && {
                ...current,
                tools: [...current.tools.filter((known) => known.id !== call.id), call],
              },
          );
        }
      }
      await Promise.all([
        utils.threads.messages.invalidate({ aid, chat_id: chatId }),
        utils.threads.list.invalidate(),
        utils.agents.get.invalidate({ aid }),
      ]);
      // The service always ends a reply with `done` or an error: a stream that just stops was
      // cut off on its way (the log above now shows whether the exchange was kept).
      if (!answered) throw new CutOff();
    } catch (caught) {
      setDraft(question);
      if (controller.signal.aborted) setStopped(true);
      else setError(caught instanceof CutOff ? CUT_OFF : notSent(caught));
    } finally {
      stream.current = undefined;
      setPending(undefined);
    }
  }

  // Enter sends; Shift+Enter starts a new line (as in most chat apps).
  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  }

  const threadIds = new Set([chatId, ...(threads.data?.threads.map((t) => t.chat_id) ?? [])]);
  return (
    <Panel
      title="Chat"
      actions={
        <>
          <label htmlFor="thread" className="sr-only">
            Thread
          </label>
          <Select
            id="thread"
            width="auto"
            value={chatId}
            onChange={(event) => setChatId(event.target.value)}
          >
            {[...threadIds].map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </Select>
          <NewThread onOpen={setChatId} onError={setError} />
        </>
      }
    >
      {messages.error && !messages.data ? (
        <ErrorNotice error={messages.error} what="the messages" onRetry={messages.refetch} />
      ) : (
        <MessageLog
          label={`Messages of thread ${chatId}`}
          messages={messages.data?.messages ?? []}
          testId="chat-log"
        >
          {messages.data?.messages.length === 0 && !pending && (
            <p className="muted">No messages in this thread yet.</p>
          )}
          {pending && <PendingExchange pending={pending} />}
        </MessageLog>
      )}
      <form onSubmit={send} className={styles.form}>
        <label htmlFor="chat-input" className="sr-only">
          Message
        </label>
        <Textarea
          id="chat-input"
          ref={field}
          height="compact"
          value={draft}
          rows={2}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
          placeholder="Ask something (Enter sends, Shift+Enter for a new line)"
          maxLength={10_000}
          aria-describedby="chat-hint"
        />
        {/* Two buttons, not one that changes: Stop, pressed, must not turn into the submit
            button before its click is done (the click would then send the question again). */}
        {pending ? (
          <Button key="stop" onClick={() => stream.current?.abort()}>
            Stop
          </Button>
        ) : (
          <Button key="send" type="submit" variant="primary" disabled={!draft.trim()}>
            Send
          </Button>
        )}
      </form>
      <p id="chat-hint" className="sr-only">
        Enter sends the message; Shift and Enter start a new line.
      </p>
      {stopped && (
        <p role="status" className="muted small-text" data-testid="chat-stopped">
          Stopped. The reply was not kept and the message does not count; it is back in the box.
        </p>
      )}
      {waiting.length > 0 && (
        <p role="status" className="small-text" data-testid="chat-waiting">
          The model asked for {waiting.join(", ")}, which {waiting.length > 1 ? "need" : "needs"}{" "}
          approval: decide under <a href="#approvals">Approvals</a>. The reply then appears in this
          conversation.
        </p>
      )}
      {error && <ErrorText role="alert">{error}</ErrorText>}
      <LeaveGuard active={pending !== undefined} title="Leave while a reply is coming?">
        Leaving stops the reply: it is not kept, and the question is not counted.
      </LeaveGuard>
    </Panel>
  );
}

/**
 * The events of a reply until Stop: the request's own abort closes the connection (the service
 * then gives the message back), but a stream already being read does not always end by itself
 * when its connection does, so the reading stops here at once.
 */
async function* untilStopped<T>(events: AsyncIterable<T>, signal: AbortSignal) {
  const iterator = events[Symbol.asyncIterator]();
  const stopped = new Promise<never>((_, reject) => {
    const stop = () => reject(new DOMException("Stopped", "AbortError"));
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
  stopped.catch(() => undefined);
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), stopped]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Not awaited: a stream whose connection is gone may never answer.
    iterator.return?.()?.catch(() => undefined);
  }
}

class CutOff extends Error {}

const CUT_OFF =
  "The reply was cut off before it ended: the log shows what the thread kept. Your message is back in the box.";

/** Why a question was not answered, and that it is back in the box to send again. */
function notSent(caught: unknown): string {
  const problem = problemOf(caught);
  return problem.unreachable
    ? `Not sent: ${problem.detail} Your message is back in the box: send it again once the service answers.`
    : `Not sent: ${problem.detail} Your message is back in the box.`;
}

/** Opens a thread by name (it is created by its first message). */
function NewThread({
  onOpen,
  onError,
}: {
  onOpen: (chatId: string) => void;
  onError: (error: string | undefined) => void;
}) {
  const [name, setName] = useState("");
  return (
    <form
      className="row"
      onSubmit={(event) => {
        event.preventDefault();
        const chatId = name.trim();
        if (!CHAT_ID_PATTERN.test(chatId)) {
          onError(
            "A thread name is 1 to 128 letters, digits or . _ : @ - and cannot start with one of . _ : @ -",
          );
          return;
        }
        onError(undefined);
        onOpen(chatId);
        setName("");
      }}
    >
      <label htmlFor="new-thread" className="sr-only">
        New thread name
      </label>
      <Input
        id="new-thread"
        width="narrow"
        value={name}
        onChange={(event) => setName(event.target.value)}
        placeholder="new thread"
      />
      <Button type="submit" disabled={!name.trim()}>
        Open thread
      </Button>
    </form>
  );
}
