"use client";

import { useEffect, useRef, useState } from "react";
import { MessageLog } from "./message-log";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { Panel } from "./ui/panel";
import { QueryState } from "./ui/query-state";
import { RelativeTime } from "./ui/relative-time";
import { Table, Td, Th } from "./ui/table";

type Thread = { caller: string; chat_id: string };

const PAGE = 25;

/**
 * Every caller's threads with the agent, with whose each is; a thread opens read-only. One given
 * by the page's URL (`initial`, a link of the request log) is open from the start and scrolled
 * to, whether or not it is among the threads listed.
 */
export function ThreadsPanel({ aid, initial }: { aid: string; initial?: Thread }) {
  const [open, setOpen] = useState<Thread | undefined>(initial);
  const [pages, setPages] = useState(1);
  const messages = trpc.threads.messages.useQuery(
    { aid, caller: open?.caller ?? "admin", chat_id: open?.chat_id ?? "default", limit: 100 },
    { enabled: open !== undefined },
  );
  // The thread the page opened with is far down the agent's page, below the list: shown once
  // its messages are there.
  const log = useRef<HTMLDivElement>(null);
  const scrolled = useRef(initial === undefined);
  useEffect(() => {
    if (scrolled.current || !messages.data) return;
    scrolled.current = true;
    log.current?.scrollIntoView({ block: "center" });
  }, [messages.data]);

  return (
    <Panel title="Conversations">
      <ThreadsPage
        aid={aid}
        pages={pages}
        open={open}
        onOpen={setOpen}
        onMore={() => setPages((n) => n + 1)}
      />
      <div ref={log}>
        {open && (
          <QueryState query={messages} what="the thread">
            {(data) => (
              <MessageLog
                label={`Thread ${open.chat_id}`}
                messages={data.messages}
                testId="thread-log"
              >
                {data.messages.length === 0 && (
                  <p className="muted">No messages in this thread: no reply was stored in it.</p>
                )}
              </MessageLog>
            )}
          </QueryState>
        )}
      </div>
    </Panel>
  );
}

/** A page of threads, most recently active first, and under it the further pages shown. */
function ThreadsPage({
  aid,
  pages,
  cursor,
  depth = 0,
  open,
  onOpen,
  onMore,
}: {
  aid: string;
  pages: number;
  cursor?: string;
  depth?: number;
  open: Thread | undefined;
  onOpen: (thread: Thread) => void;
  onMore: () => void;
}) {
  const threads = trpc.threads.list.useQuery({ aid, limit: PAGE, cursor });
  return (
    <QueryState
      query={threads}
      what="the conversations"
      isEmpty={(data) => depth === 0 && data.threads.length === 0}
      empty="No conversations yet."
    >
      {(data) => (
        <>
          <Table layout="cards">
            <thead className={depth === 0 ? undefined : "sr-only"}>
              <tr>
                <Th>Caller</Th>
                <Th>Thread</Th>
                <Th numeric>Messages</Th>
                <Th>Last message</Th>
              </tr>
            </thead>
            <tbody>
              {data.threads.map((thread) => (
                <tr key={`${thread.caller}/${thread.chat_id}`} data-testid="thread-row">
                  <Td label="Caller">{thread.caller_label}</Td>
                  <Td label="Thread">
                    <Button
                      size="small"
                      aria-pressed={
                        open?.caller === thread.caller && open.chat_id === thread.chat_id
                      }
                      onClick={() => onOpen({ caller: thread.caller, chat_id: thread.chat_id })}
                    >
                      {thread.chat_id}
                    </Button>
                  </Td>
                  <Td label="Messages" numeric>
                    {thread.message_count}
                  </Td>
                  <Td label="Last message">
                    <RelativeTime value={thread.last_message_at} />
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
          {data.next_cursor && depth + 1 < pages ? (
            <ThreadsPage
              aid={aid}
              pages={pages}
              cursor={data.next_cursor}
              depth={depth + 1}
              open={open}
              onOpen={onOpen}
              onMore={onMore}
            />
          ) : (
            data.next_cursor && <Button onClick={onMore}>Show more conversations</Button>
          )}
        </>
      )}
    </QueryState>
  );
}
