"use client";

import { type FormEvent, type KeyboardEvent, useState } from "react";
import { CHAT_ID_PATTERN } from "@/server/threads/schema";
import styles from "./chat-panel.module.css";
import { MessageBubble, MessageLog } from "./message-log";
import { ToolCalls, type ToolCallView } from "./tool-calls";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { Input } from "./ui/input";
import { ErrorText } from "./ui/notice";
import { Panel } from "./ui/panel";
import { problemOf } from "./ui/problem";
import { ErrorNotice } from "./ui/query-state";
import { Select } from "./ui/select";
import { Textarea } from "./ui/textarea";

/**
 * Talk to an agent as the admin: the admin's own threads (threads belong to their caller), the
 * chosen one's messages, and replies streamed as they come.
 */
export function ChatPanel({ aid }: { aid: string }) {
  const utils = trpc.useUtils();
  const [chatId, setChatId] = useState("default");
  const [draft, setDraft] = useState("");
  const [pending, setPending] = useState<{
    question: string;
    reply: string;
    tools: ToolCallView[];
  }>();
  const [error, setError] = useState<string>();
  const threads = trpc.threads.list.useQuery({ aid, caller: "admin" });
  const messages = trpc.threads.messages.useQuery({ aid, chat_id: chatId, limit: 100 });

  async function send(event?: FormEvent) {
    event?.preventDefault();
    const question = draft.trim();
    if (!question || pending) return;
    setError(undefined);
    setDraft("");
    setPending({ question, reply: "", tools: [] });
    try {
      const events = await utils.client.chat.stream.mutate({ aid, q: question, chat_id: chatId });
      for await (const chatEvent of events) {
        if (chatEvent.type === "delta") {
          setPending((current) => current && { ...current, reply: current.reply + chatEvent.text });
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
    } catch (caught) {
      setError(problemOf(caught).detail);
      setDraft(question);
    } finally {
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
          {pending && (
            <>
              <MessageBubble from="user">{pending.question}</MessageBubble>
              <ToolCalls calls={pending.tools} />
              <MessageBubble from="assistant" testId="streaming-reply">
                {pending.reply || "…"}
              </MessageBubble>
            </>
          )}
        </MessageLog>
      )}
      <form onSubmit={send} className={styles.form}>
        <label htmlFor="chat-input" className="sr-only">
          Message
        </label>
        <Textarea
          id="chat-input"
          height="compact"
          value={draft}
          rows={2}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
          placeholder="Ask something (Enter sends, Shift+Enter for a new line)"
          maxLength={10_000}
          aria-describedby="chat-hint"
        />
        <Button type="submit" variant="primary" disabled={!!pending || !draft.trim()}>
          Send
        </Button>
      </form>
      <p id="chat-hint" className="sr-only">
        Enter sends the message; Shift and Enter start a new line.
      </p>
      {error && <ErrorText role="alert">{error}</ErrorText>}
    </Panel>
  );
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
