"use client";

import { type FormEvent, useState } from "react";
import { CHAT_ID_PATTERN } from "@/server/chat/schema";
import { problemOf, trpc } from "./trpc";

/** Talk to an agent: its threads, the chosen thread's messages, and replies streamed as they come. */
export function ChatPanel({ aid }: { aid: string }) {
  const utils = trpc.useUtils();
  const [chatId, setChatId] = useState("default");
  const [draft, setDraft] = useState("");
  const [newThread, setNewThread] = useState("");
  const [pending, setPending] = useState<{ question: string; reply: string }>();
  const [error, setError] = useState<string>();
  const threads = trpc.chat.threads.useQuery({ aid });
  const messages = trpc.chat.messages.useQuery({ aid, chat_id: chatId, limit: 100 });

  async function send(event: FormEvent) {
    event.preventDefault();
    const question = draft.trim();
    if (!question || pending) return;
    setError(undefined);
    setDraft("");
    setPending({ question, reply: "" });
    try {
      const events = await utils.client.chat.stream.mutate({ aid, q: question, chat_id: chatId });
      for await (const chatEvent of events) {
        if (chatEvent.type === "delta") {
          setPending((current) => current && { ...current, reply: current.reply + chatEvent.text });
        }
      }
      await Promise.all([
        utils.chat.messages.invalidate({ aid, chat_id: chatId }),
        utils.chat.threads.invalidate({ aid }),
        utils.agents.get.invalidate({ aid }),
      ]);
    } catch (caught) {
      setError(problemOf(caught).detail);
      setDraft(question);
    } finally {
      setPending(undefined);
    }
  }

  const threadIds = new Set([chatId, ...(threads.data?.threads.map((t) => t.chat_id) ?? [])]);
  return (
    <section className="panel" aria-labelledby="chat-heading">
      <div className="row">
        <h2 id="chat-heading" style={{ margin: 0 }}>
          Chat
        </h2>
        <span className="spacer" />
        <label htmlFor="thread" className="sr-only">
          Thread
        </label>
        <select
          id="thread"
          value={chatId}
          onChange={(event) => setChatId(event.target.value)}
          style={{ width: "auto" }}
        >
          {[...threadIds].map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
        <form
          className="row"
          onSubmit={(event) => {
            event.preventDefault();
            const name = newThread.trim();
            if (!CHAT_ID_PATTERN.test(name)) {
              setError("A thread name is 1 to 128 letters, digits or . _ : @ - (not first).");
              return;
            }
            setError(undefined);
            setChatId(name);
            setNewThread("");
          }}
        >
          <label htmlFor="new-thread" className="sr-only">
            New thread name
          </label>
          <input
            id="new-thread"
            value={newThread}
            onChange={(event) => setNewThread(event.target.value)}
            placeholder="new thread"
            style={{ width: "10rem" }}
          />
          <button type="submit" disabled={!newThread.trim()}>
            Open thread
          </button>
        </form>
      </div>
      <div className="chat-log" aria-live="polite" data-testid="chat-log">
        {messages.data?.messages.length === 0 && !pending && (
          <p className="muted">No messages in this thread yet.</p>
        )}
        {messages.data?.messages.map((m) => (
          <div key={m.id} className={`message ${m.role}`}>
            {m.content}
          </div>
        ))}
        {pending && (
          <>
            <div className="message user">{pending.question}</div>
            <div className="message assistant" data-testid="streaming-reply">
              {pending.reply || "…"}
            </div>
          </>
        )}
      </div>
      <form onSubmit={send} className="row">
        <label htmlFor="chat-input" className="sr-only">
          Message
        </label>
        <input
          id="chat-input"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          placeholder="Ask something"
          maxLength={10_000}
          style={{ flex: 1, width: "auto" }}
        />
        <button type="submit" className="primary" disabled={!!pending || !draft.trim()}>
          Send
        </button>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
