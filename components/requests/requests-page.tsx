"use client";

import { keepPreviousData } from "@tanstack/react-query";
import { FAILED_STATUSES } from "@/server/request-log/view";
import { refreshEvery, trpc } from "../trpc";
import { PageHeader } from "../ui/page-header";
import { PAGE_SIZES, Pager } from "../ui/pager";
import { Panel } from "../ui/panel";
import { QueryState } from "../ui/query-state";
import { positiveInt, useUrlState } from "../ui/url-state";
import { RequestsFilters } from "./requests-filters";
import { RequestsTable } from "./requests-table";
import { instantParam } from "./times";

/** A status filter from the URL: `failed` or a three-digit status; undefined for anything else. */
function statusParam(value: string | null): string | undefined {
  return value === FAILED_STATUSES || (value && /^[1-5]\d\d$/.test(value)) ? value : undefined;
}

/** The log's state, read from the URL (what Back, reload and a shared link restore). */
function useRequestsState() {
  const { params, update } = useUrlState();
  const size = positiveInt(params.get("size"), 25);
  return {
    update,
    aid: params.get("aid")?.trim() ?? "",
    caller: params.get("caller")?.trim() ?? "",
    status: statusParam(params.get("status")),
    from: instantParam(params.get("from")),
    to: instantParam(params.get("to")),
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : 25,
    cursor: params.get("cursor") ?? undefined,
    page: params.get("cursor") ? positiveInt(params.get("page"), 2) : 1,
  };
}

/**
 * The request log: every chat request, newest first (refreshed every few seconds while the
 * first page shows), filtered by agent, caller, status and time, a page at a time.
 */
export function RequestsPage() {
  const state = useRequestsState();
  const { update } = state;
  const list = trpc.requestLog.list.useQuery(
    {
      limit: state.size,
      aid: state.aid || undefined,
      caller: state.caller || undefined,
      status:
        state.status === undefined || state.status === FAILED_STATUSES
          ? state.status
          : Number(state.status),
      from: state.from,
      to: state.to,
      cursor: state.cursor,
    },
    {
      placeholderData: keepPreviousData,
      refetchInterval: refreshEvery(state.cursor ? false : 5000),
    },
  );
  const loadingPage = list.isPlaceholderData;
  // Any change of what is listed starts again at page 1.
  const restart = { cursor: undefined, page: undefined };
  const filtered = Boolean(state.aid || state.caller || state.status || state.from || state.to);

  return (
    <>
      <PageHeader title="Request log" />
      <Panel as="div">
        <RequestsFilters
          aid={state.aid}
          caller={state.caller}
          status={state.status}
          from={state.from}
          to={state.to}
          onChange={(changes, how) => update({ ...restart, ...changes }, how)}
        />
        <QueryState
          query={list}
          what="the requests"
          isEmpty={(data) => data.requests.length === 0}
          empty={
            filtered
              ? "No request matches these filters."
              : "No chat requests yet: they are listed here as they come."
          }
        >
          {(data) => (
            <div aria-busy={loadingPage} data-testid="requests-list">
              <RequestsTable requests={data.requests} />
            </div>
          )}
        </QueryState>
        {list.data && (
          <Pager
            noun="requests"
            page={state.page}
            pageSize={state.size}
            shown={list.data.requests.length}
            total={undefined}
            hasPrevious={Boolean(list.data.prev_cursor) || state.page > 1}
            hasNext={Boolean(list.data.next_cursor)}
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
