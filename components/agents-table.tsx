"use client";

import Link from "next/link";
import { useEffect, useMemo, useState } from "react";
import type { Agent } from "@/server/agents/schema";
import { QuotaBars } from "./quota-bars";
import { problemOf, trpc } from "./trpc";

type SortKey = "aid" | "name" | "daily";
const PAGE_SIZE = 25;

export function AgentsTable() {
  const [search, setSearch] = useState("");
  const [q, setQ] = useState("");
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({
    key: "aid",
    descending: false,
  });

  // Search as the admin types, without a request per keystroke.
  useEffect(() => {
    const timer = setTimeout(() => {
      setQ(search.trim());
      setCursors([undefined]);
    }, 250);
    return () => clearTimeout(timer);
  }, [search]);

  const cursor = cursors.at(-1);
  const page = trpc.agents.list.useQuery(
    { limit: PAGE_SIZE, q: q || undefined, cursor },
    { placeholderData: (previous) => previous },
  );

  const rows = useMemo(
    () => sortAgents(page.data?.agents ?? [], sort.key, sort.descending),
    [page.data, sort],
  );
  const sortBy = (key: SortKey) =>
    setSort((current) => ({ key, descending: current.key === key ? !current.descending : false }));
  const ariaSort = (key: SortKey) =>
    sort.key === key ? (sort.descending ? "descending" : "ascending") : undefined;

  return (
    <>
      <div className="row" style={{ marginBottom: "1rem" }}>
        <h1 style={{ margin: 0 }}>Agents</h1>
        <span className="spacer" />
        <Link className="button primary" href="/dashboard/agents/new">
          New agent
        </Link>
      </div>
      <div className="panel">
        <div className="field">
          <label htmlFor="agent-search">Search by ID or name</label>
          <input
            id="agent-search"
            type="search"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            placeholder="support"
          />
        </div>
        {page.error ? (
          <p className="error">{problemOf(page.error).detail}</p>
        ) : page.isPending ? (
          <p aria-busy="true">Loading…</p>
        ) : rows.length === 0 ? (
          <p className="muted">
            {q ? `No agent matches “${q}”.` : "No agents yet: create the first one."}
          </p>
        ) : (
          <table>
            <thead>
              <tr>
                <th aria-sort={ariaSort("aid")}>
                  <button type="button" onClick={() => sortBy("aid")}>
                    ID
                  </button>
                </th>
                <th aria-sort={ariaSort("name")}>
                  <button type="button" onClick={() => sortBy("name")}>
                    Name
                  </button>
                </th>
                <th>Autonomous</th>
                <th aria-sort={ariaSort("daily")}>
                  <button type="button" onClick={() => sortBy("daily")}>
                    Quota
                  </button>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((agent) => (
                <tr key={agent.aid} data-testid={`agent-row-${agent.aid}`}>
                  <td>
                    <Link href={`/dashboard/agents/${agent.aid}`}>{agent.aid}</Link>
                  </td>
                  <td>{agent.name}</td>
                  <td>
                    {agent.autonomous_enabled ? (
                      <>
                        every {agent.autonomous_minutes} min
                        <div className="muted">
                          next{" "}
                          {agent.autonomous_next_run_at
                            ? new Date(agent.autonomous_next_run_at).toLocaleTimeString()
                            : "—"}
                        </div>
                      </>
                    ) : (
                      <span className="muted">off</span>
                    )}
                  </td>
                  <td>
                    <QuotaBars quota={agent.quota} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <div className="row" style={{ marginTop: "0.75rem" }}>
          <button
            type="button"
            disabled={cursors.length === 1}
            onClick={() => setCursors((c) => c.slice(0, -1))}
          >
            Previous page
          </button>
          <button
            type="button"
            disabled={!page.data?.next_cursor}
            onClick={() => setCursors((c) => [...c, page.data?.next_cursor ?? undefined])}
          >
            Next page
          </button>
          <span className="muted">Page {cursors.length}</span>
        </div>
      </div>
    </>
  );
}

function sortAgents(agents: Agent[], key: SortKey, descending: boolean): Agent[] {
  const value = (agent: Agent) =>
    key === "daily"
      ? agent.quota.message_limit_daily
        ? agent.quota.message_count_daily / agent.quota.message_limit_daily
        : 0
      : agent[key].toLowerCase();
  const sorted = [...agents].sort((a, b) =>
    value(a) < value(b) ? -1 : value(a) > value(b) ? 1 : 0,
  );
  return descending ? sorted.reverse() : sorted;
}
