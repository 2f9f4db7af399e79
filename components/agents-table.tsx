"use client";

import { keepPreviousData } from "@tanstack/react-query";
import Link from "next/link";
import { AGENT_SORTS, type AgentSort } from "@/server/agents/view";
import { lastActivity } from "@/server/quota/view";
import { AgentsFilters } from "./agents-filters";
import { TightestLimit } from "./quota-bars";
import { trpc } from "./trpc";
import { ButtonLink } from "./ui/button";
import { Notice } from "./ui/notice";
import { PageHeader } from "./ui/page-header";
import { PAGE_SIZES, Pager } from "./ui/pager";
import { Panel } from "./ui/panel";
import { QueryState } from "./ui/query-state";
import { ReadOnlyNotice } from "./ui/read-only-notice";
import { MaybeTime } from "./ui/relative-time";
import { StatusBadge } from "./ui/status-badge";
import { Table, Td, Th } from "./ui/table";
import { oneOf, positiveInt, useUrlState } from "./ui/url-state";
import { useRole } from "./use-role";

type Order = "asc" | "desc";
const DEFAULT_ORDER: Record<AgentSort, Order> = {
  aid: "asc",
  name: "asc",
  quota: "desc",
  activity: "desc",
};

/** The list's state, read from the URL (what Back, reload and a shared link restore). */
function useAgentsListState() {
  const { params, update } = useUrlState();
  const sort = oneOf(params.get("sort"), AGENT_SORTS) ?? "aid";
  const size = positiveInt(params.get("size"), 25);
  return {
    update,
    q: params.get("q") ?? "",
    sort,
    order: oneOf(params.get("order"), ["asc", "desc"] as const) ?? DEFAULT_ORDER[sort],
    quota: oneOf(params.get("quota"), ["near", "over"] as const),
    autonomous: oneOf(params.get("autonomous"), ["on", "off"] as const),
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : 25,
    cursor: params.get("cursor") ?? undefined,
    deleted: params.get("deleted") ?? undefined,
    page: params.get("cursor") ? positiveInt(params.get("page"), 2) : 1,
  };
}

export function AgentsTable() {
  const state = useAgentsListState();
  const { update } = state;
  const { role, canOperate } = useRole();
  const list = trpc.agents.list.useQuery(
    {
      limit: state.size,
      q: state.q || undefined,
      sort: state.sort,
      order: state.order,
      quota: state.quota,
      autonomous: state.autonomous,
      cursor: state.cursor,
      include_total: true,
    },
    // The rows shown stay while the next page loads; the pager is off meanwhile.
    { placeholderData: keepPreviousData },
  );
  const loadingPage = list.isPlaceholderData;
  // Any change of what is listed starts again at page 1.
  const restart = { cursor: undefined, page: undefined, deleted: undefined };

  const sortBy = (key: AgentSort) => {
    const order = key === state.sort ? (state.order === "asc" ? "desc" : "asc") : undefined;
    update({ ...restart, sort: key === "aid" ? undefined : key, order });
  };
  const header = (key: AgentSort, label: string) => (
    <Th sorted={state.sort === key ? `${state.order}ending` : undefined} onSort={() => sortBy(key)}>
      {label}
    </Th>
  );
  const filtered = Boolean(state.q || state.quota || state.autonomous);

  return (
    <>
      <PageHeader
        title="Agents"
        actions={
          canOperate && (
            <ButtonLink variant="primary" href="/dashboard/agents/new">
              New agent
            </ButtonLink>
          )
        }
      />
      {role && !canOperate && <ReadOnlyNotice role={role} what="agents" />}
      {state.deleted && (
        <Notice variant="info">
          Agent {state.deleted} was deleted, with its conversations, runs and keys.
        </Notice>
      )}
      <Panel as="div">
        <AgentsFilters
          q={state.q}
          quota={state.quota}
          autonomous={state.autonomous}
          onChange={(changes, how) => update({ ...restart, ...changes }, how)}
        />
        <QueryState
          query={list}
          what="agents"
          isEmpty={(data) => data.agents.length === 0}
          empty={
            filtered
              ? `No agent matches${state.q ? ` “${state.q}”` : ""} with these filters.`
              : "No agents yet: create the first one."
          }
        >
          {(data) => (
            <div aria-busy={loadingPage} data-testid="agents-list">
              <Table layout="cards">
                <caption className="sr-only">
                  Agents, by {state.sort} {state.order === "asc" ? "ascending" : "descending"}
                </caption>
                <thead>
                  <tr>
                    {header("aid", "ID")}
                    {header("name", "Name")}
                    <Th>Model</Th>
                    <Th>Autonomous</Th>
                    {header("quota", "Quota use")}
                    {header("activity", "Last activity")}
                  </tr>
                </thead>
                <tbody>
                  {data.agents.map((agent) => (
                    <tr key={agent.aid} data-testid={`agent-row-${agent.aid}`}>
                      <Td label="ID">
                        <Link href={`/dashboard/agents/${agent.aid}`}>{agent.aid}</Link>
                        {agent.paused && (
                          <>
                            {" "}
                            <StatusBadge status="paused" testId="agent-state" />
                          </>
                        )}
                      </Td>
                      <Td label="Name">{agent.name}</Td>
                      <Td label="Model">
                        {agent.model ?? <span className="muted">provider's default</span>}
                      </Td>
                      <Td label="Autonomous">
                        {agent.autonomous_enabled ? (
                          <span className="small-text">
                            {agent.autonomous_cron ? (
                              <code>{agent.autonomous_cron}</code>
                            ) : (
                              `every ${agent.autonomous_minutes} min`
                            )}{" "}
                            · next <MaybeTime value={agent.autonomous_next_run_at} none="—" />
                          </span>
                        ) : (
                          <span className="muted">off</span>
                        )}
                      </Td>
                      <Td label="Quota use" stacked>
                        <TightestLimit quota={agent.quota} />
                      </Td>
                      <Td label="Last activity">
                        <MaybeTime value={lastActivity(agent.quota)} />
                      </Td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </div>
          )}
        </QueryState>
        {list.data && (
          <Pager
            noun="agents"
            page={state.page}
            pageSize={state.size}
            shown={list.data?.agents.length ?? 0}
            total={list.data?.total}
            hasPrevious={Boolean(list.data?.prev_cursor) || state.page > 1}
            hasNext={Boolean(list.data?.next_cursor)}
            busy={loadingPage || list.isPending}
            onPrevious={() =>
              state.page <= 2 || !list.data?.prev_cursor
                ? update(restart)
                : update({ cursor: list.data.prev_cursor, page: state.page - 1 })
            }
            onNext={() =>
              update({ cursor: list.data?.next_cursor ?? undefined, page: state.page + 1 })
            }
            onPageSize={(size) => update({ ...restart, size: size === 25 ? undefined : size })}
          />
        )}
      </Panel>
    </>
  );
}
