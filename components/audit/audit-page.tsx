"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import type { inferProcedureInput } from "@trpc/server";
import type { AppRouter } from "@/server/routers";
import { instantParam } from "../requests/times";
import { refreshEvery, trpc } from "../trpc";
import { Button } from "../ui/button";
import { PageHeader } from "../ui/page-header";
import { Panel } from "../ui/panel";
import { QueryState } from "../ui/query-state";
import { oneOf, useUrlState } from "../ui/url-state";
import styles from "./audit.module.css";
import { AuditEntryItem } from "./audit-entry";
import { ACTIONS, AuditFilters } from "./audit-filters";

const PAGE_SIZE = 50;

/** The filters, read from the URL (what Back, reload and a shared link restore). */
function useAuditFilters() {
  const { params, update } = useUrlState();
  return {
    update,
    values: {
      actor: params.get("actor")?.trim() ?? "",
      target: params.get("target")?.trim() ?? "",
      action: oneOf(params.get("action"), ACTIONS),
      since: instantParam(params.get("since")),
      until: instantParam(params.get("until")),
    },
  };
}

type AuditFilter = Omit<inferProcedureInput<AppRouter["audit"]["list"]>, "cursor">;

/**
 * The pages loaded so far, newest first. TanStack's own infinite query over the tRPC client:
 * tRPC's useInfiniteQuery adds `direction` to the input, which the procedure's strict input
 * refuses. The first page alone refreshes every few seconds.
 */
function useAuditPages(input: AuditFilter) {
  const { client } = trpc.useUtils();
  return useInfiniteQuery({
    queryKey: ["audit.list", "pages", input],
    queryFn: ({ pageParam, signal }) =>
      client.audit.list.query({ ...input, cursor: pageParam }, { signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    placeholderData: keepPreviousData,
    refetchInterval: (query) =>
      (query.state.data?.pages.length ?? 0) > 1 ? false : refreshEvery(10_000)(query),
  });
}

/**
 * The audit log: each change an admin made, newest first, filtered by actor, target, action and
 * time; "Older entries" adds the next page below. The first page refreshes every few seconds.
 */
export function AuditPage() {
  const { values, update } = useAuditFilters();
  const list = useAuditPages({
    limit: PAGE_SIZE,
    actor: values.actor || undefined,
    target: values.target || undefined,
    action: values.action,
    since: values.since,
    until: values.until,
  });
  const filtered = Boolean(
    values.actor || values.target || values.action || values.since || values.until,
  );
  const entries = list.data?.pages.flatMap((page) => page.entries);

  return (
    <>
      <PageHeader title="Audit log" />
      <Panel as="div">
        <AuditFilters values={values} onChange={update} />
        <QueryState
          query={{
            data: entries,
            error: list.error,
            isPending: list.isPending,
            refetch: list.refetch,
            dataUpdatedAt: list.dataUpdatedAt,
          }}
          what="the audit log"
          isEmpty={(data) => data.length === 0}
          empty={filtered ? "No changes match these filters." : "No changes recorded yet."}
        >
          {(data) => (
            <ol
              className={styles.entries}
              aria-label="Changes, newest first"
              aria-busy={list.isPlaceholderData}
              data-testid="audit-list"
            >
              {data.map((entry) => (
                <AuditEntryItem key={entry.id} entry={entry} />
              ))}
            </ol>
          )}
        </QueryState>
        {list.hasNextPage && (
          <div className={`row ${styles.more}`}>
            <Button onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage}>
              {list.isFetchingNextPage ? "Loading…" : "Older entries"}
            </Button>
          </div>
        )}
      </Panel>
    </>
  );
}
