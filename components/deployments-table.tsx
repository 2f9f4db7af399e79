"use client";

import { keepPreviousData } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useEffect, useState } from "react";
import { DEPLOYMENT_STATUSES } from "@/server/deployments/view";
import { CreateDeployment } from "./deployment-create";
import { refreshEvery, trpc } from "./trpc";
import { Copyable } from "./ui/copy-button";
import { shortAddress } from "./ui/format";
import { PageHeader } from "./ui/page-header";
import { PAGE_SIZES, Pager } from "./ui/pager";
import { QueryState } from "./ui/query-state";
import { RelativeTime } from "./ui/relative-time";
import { StatusBadge, statusLabel } from "./ui/status-badge";
import { oneOf, positiveInt, useUrlState } from "./ui/url-state";

export function DeploymentsTable({ isAdmin, notice }: { isAdmin: boolean; notice?: string }) {
  const { params, update } = useUrlState();
  const status = oneOf(params.get("status"), DEPLOYMENT_STATUSES);
  const owner = params.get("owner") ?? undefined;
  const sizeParam = positiveInt(params.get("size"), 25);
  const size = (PAGE_SIZES as readonly number[]).includes(sizeParam) ? sizeParam : 25;
  const cursor = params.get("cursor") ?? undefined;
  const page = cursor ? positiveInt(params.get("page"), 2) : 1;
  const list = trpc.deployments.list.useQuery(
    { status, user_address: owner, limit: size, cursor, include_total: true },
    { placeholderData: keepPreviousData, refetchInterval: refreshEvery(10_000) },
  );
  const restart = { cursor: undefined, page: undefined, notice: undefined };
  const loadingPage = list.isPlaceholderData;

  return (
    <>
      <PageHeader title="Deployments" />
      {notice === "admins-only" && (
        <p className="notice info" role="status">
          The overview and agents pages are for admins. Here are the deployments of your wallet.
        </p>
      )}
      <div className="panel">
        <div className="filters">
          <div className="field">
            <label htmlFor="status-filter">Status</label>
            <select
              id="status-filter"
              value={status ?? ""}
              onChange={(event) => update({ ...restart, status: event.target.value || undefined })}
            >
              <option value="">All</option>
              {DEPLOYMENT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {statusLabel(s)}
                </option>
              ))}
            </select>
          </div>
          {isAdmin && (
            <OwnerFilter owner={owner} onChange={(value) => update({ ...restart, owner: value })} />
          )}
        </div>
        <QueryState
          query={list}
          what="deployments"
          isEmpty={(data) => data.deployments.length === 0}
          empty={`No deployments${status ? ` in ${statusLabel(status)}` : ""}${owner ? " of that owner" : ""}.`}
        >
          {(data) => (
            <div aria-busy={loadingPage}>
              <table className="cards">
                <thead>
                  <tr>
                    <th>ID</th>
                    <th>Request</th>
                    <th>Owner</th>
                    <th>Status</th>
                    <th>Worker</th>
                    <th>Updated</th>
                  </tr>
                </thead>
                <tbody>
                  {data.deployments.map((d) => (
                    <tr key={d.id} data-testid={`deployment-row-${d.request_id}`}>
                      <td data-label="ID">
                        <Link href={`/dashboard/deployments/${d.id}`}>#{d.id}</Link>
                      </td>
                      <td data-label="Request">{d.request_id}</td>
                      <td data-label="Owner">
                        <Copyable
                          value={d.user_address}
                          what="owner address"
                          shown={shortAddress(d.user_address)}
                        />
                      </td>
                      <td data-label="Status">
                        <StatusBadge status={d.Status} />
                      </td>
                      <td data-label="Worker">
                        {d.worker_address ? (
                          <Copyable
                            value={d.worker_address}
                            what="worker address"
                            shown={shortAddress(d.worker_address)}
                          />
                        ) : (
                          <span className="muted">none</span>
                        )}
                      </td>
                      <td data-label="Updated">
                        <RelativeTime value={d.updated_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </QueryState>
        {list.data && (
          <Pager
            noun="deployments"
            page={page}
            pageSize={size}
            shown={list.data?.deployments.length ?? 0}
            total={list.data?.total}
            hasPrevious={Boolean(list.data?.prev_cursor) || page > 1}
            hasNext={Boolean(list.data?.next_cursor)}
            busy={loadingPage || list.isPending}
            onPrevious={() =>
              page <= 2 || !list.data?.prev_cursor
                ? update(restart)
                : update({ cursor: list.data.prev_cursor, page: page - 1 })
            }
            onNext={() => update({ cursor: list.data?.next_cursor ?? undefined, page: page + 1 })}
            onPageSize={(next) => update({ ...restart, size: next === 25 ? undefined : next })}
          />
        )}
      </div>
      {isAdmin && <CreateDeployment />}
    </>
  );
}

/** The owner filter (admins only): applied on submit, since an address is typed in full. */
function OwnerFilter({
  owner,
  onChange,
}: {
  owner: string | undefined;
  onChange: (value: string | undefined) => void;
}) {
  const [draft, setDraft] = useState(owner ?? "");
  useEffect(() => setDraft(owner ?? ""), [owner]);
  return (
    <form
      className="row bottom"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        onChange(draft.trim() || undefined);
      }}
    >
      <div className="field grow">
        <label htmlFor="owner-filter">Owner address</label>
        <input id="owner-filter" value={draft} onChange={(event) => setDraft(event.target.value)} />
      </div>
      <div className="field">
        <button type="submit">Filter</button>
      </div>
    </form>
  );
}
