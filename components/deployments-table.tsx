"use client";

import { keepPreviousData } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useState } from "react";
import { listDeploymentsInputSchema } from "@/server/deployments/schema";
import { DEPLOYMENT_STATUSES } from "@/server/deployments/view";
import { CreateDeployment } from "./deployment-create";
import { refreshEvery, trpc } from "./trpc";
import { Button } from "./ui/button";
import { Copyable } from "./ui/copy-button";
import { Field, FieldSpace } from "./ui/field";
import { shortAddress } from "./ui/format";
import { Input } from "./ui/input";
import { Notice } from "./ui/notice";
import { PageHeader } from "./ui/page-header";
import { PAGE_SIZES, Pager } from "./ui/pager";
import { Panel } from "./ui/panel";
import { QueryState } from "./ui/query-state";
import { ReadOnlyNotice } from "./ui/read-only-notice";
import { RelativeTime } from "./ui/relative-time";
import { Select } from "./ui/select";
import { StatusBadge, statusLabel } from "./ui/status-badge";
import { Table, Td, Th } from "./ui/table";
import { oneOf, positiveInt, useUrlState } from "./ui/url-state";
import { useFocusFirstInvalid } from "./ui/use-focus-first-invalid";
import { useRole } from "./use-role";

/** What an owner address must be: the rule the listing checks it by. */
const OWNER_RULE = listDeploymentsInputSchema.shape.user_address.unwrap();

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
  // Creating is an operator's; a wallet (role "wallet") sees its own deployments, as before.
  const { role, canOperate } = useRole();

  return (
    <>
      <PageHeader title="Deployments" />
      {notice === "admins-only" && (
        <Notice variant="info">
          The overview and agents pages are for admins. Here are the deployments of your wallet.
        </Notice>
      )}
      {isAdmin && role && !canOperate && <ReadOnlyNotice role={role} what="deployments" />}
      <Panel as="div">
        <div className="filters">
          <Field name="status-filter" label="Status">
            {(control) => (
              <Select
                {...control}
                value={status ?? ""}
                onChange={(event) =>
                  update({ ...restart, status: event.target.value || undefined })
                }
              >
                <option value="">All</option>
                {DEPLOYMENT_STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {statusLabel(s)}
                  </option>
                ))}
              </Select>
            )}
          </Field>
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
              <Table layout="cards">
                <thead>
                  <tr>
                    <Th>ID</Th>
                    <Th>Request</Th>
                    <Th>Owner</Th>
                    <Th>Status</Th>
                    <Th>Worker</Th>
                    <Th>Updated</Th>
                  </tr>
                </thead>
                <tbody>
                  {data.deployments.map((d) => (
                    <tr key={d.id} data-testid={`deployment-row-${d.request_id}`}>
                      <Td label="ID">
                        <Link href={`/dashboard/deployments/${d.id}`}>#{d.id}</Link>
                      </Td>
                      <Td label="Request">{d.request_id}</Td>
                      <Td label="Owner">
                        <Copyable
                          value={d.user_address}
                          what="owner address"
                          shown={shortAddress(d.user_address)}
                        />
                      </Td>
                      <Td label="Status">
                        <StatusBadge status={d.Status} />
                      </Td>
                      <Td label="Worker">
                        {d.worker_address ? (
                          <Copyable
                            value={d.worker_address}
                            what="worker address"
                            shown={shortAddress(d.worker_address)}
                          />
                        ) : (
                          <span className="muted">none</span>
                        )}
                      </Td>
                      <Td label="Updated">
                        <RelativeTime value={d.updated_at} />
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
      </Panel>
      {isAdmin && canOperate && <CreateDeployment />}
    </>
  );
}

/**
 * The owner filter (admins only): applied on submit, since an address is typed in full, and
 * checked first by the API's own rule, so a wrong one is said beside the field (not as the
 * list's failure, in the API's words).
 */
function OwnerFilter({
  owner,
  onChange,
}: {
  owner: string | undefined;
  onChange: (value: string | undefined) => void;
}) {
  const [error, setError] = useState<string>();
  const { form, focusFirstInvalid } = useFocusFirstInvalid();
  return (
    <form
      ref={form}
      className="row bottom"
      onSubmit={(event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        // Read from the field, which holds what was typed: a controlled value was "" for an
        // address typed before the page hydrated (React keeps the field's text then, not the
        // state), and the filter said nothing (a browser test, once, in CI).
        const value = String(new FormData(event.currentTarget).get("owner-filter") ?? "").trim();
        const checked = OWNER_RULE.safeParse(value);
        if (value && !checked.success) {
          setError(checked.error.issues[0]?.message);
          focusFirstInvalid();
          return;
        }
        setError(undefined);
        onChange(value || undefined);
      }}
    >
      <Field name="owner-filter" label="Owner address" className="grow" error={error}>
        {(control) => (
          // Keyed by the filter in the URL: a new one (back, a link) starts the field again.
          <Input {...control} key={owner ?? ""} defaultValue={owner ?? ""} />
        )}
      </Field>
      <FieldSpace>
        <Button type="submit">Filter</Button>
      </FieldSpace>
    </form>
  );
}
