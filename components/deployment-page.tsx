"use client";

import { keepPreviousData } from "@tanstack/react-query";
import Link from "next/link";
import type { z } from "zod";
import type { deploymentWithHistorySchema } from "@/server/deployments/schema";
import { ADMIN_SIGNER } from "@/server/deployments/view";
import { AdminChangeStatus } from "./admin-change-status";
import { ChangeStatus } from "./change-status";
import styles from "./deployment-page.module.css";
import { refreshEvery, trpc } from "./trpc";
import { Copyable } from "./ui/copy-button";
import { shortAddress } from "./ui/format";
import { PageHeader } from "./ui/page-header";
import { Pager } from "./ui/pager";
import { Panel } from "./ui/panel";
import { QueryState } from "./ui/query-state";
import { RelativeTime } from "./ui/relative-time";
import { StatusBadge } from "./ui/status-badge";
import { positiveInt, useUrlState } from "./ui/url-state";
import { WalletProvider } from "./wallet/wallet-provider";

type Deployment = z.output<typeof deploymentWithHistorySchema>;

/** How often the page asks for changes a worker may have signed meanwhile. */
const REFRESH_MS = 5_000;

export function DeploymentPage({
  id,
  chainIds,
  admin,
}: {
  id: number;
  chainIds: number[];
  /** Signed in with the admin key: it changes statuses as the admin; a wallet signs its change. */
  admin: boolean;
}) {
  const deployment = trpc.deployments.get.useQuery(
    { id },
    { refetchInterval: refreshEvery(REFRESH_MS) },
  );
  return (
    <QueryState
      query={deployment}
      what="the deployment"
      afterError={<Link href="/dashboard/deployments">Back to deployments</Link>}
    >
      {(d) => (
        <>
          <PageHeader
            title={`Deployment #${d.id}`}
            detail={<StatusBadge status={d.Status} testId="deployment-status" />}
          />
          <p className="muted small-text" role="status">
            Refreshes by itself every few seconds; last change <RelativeTime value={d.updated_at} />
            .
          </p>
          <div className="grid">
            <Record d={d} />
            <Panel title="Proposal">
              <pre className={styles.json}>{JSON.stringify(d.proposal, null, 2)}</pre>
              <h2>Deployment details</h2>
              <pre className={styles.json} data-testid="deployment-details">
                {JSON.stringify(d.deployment_details, null, 2)}
              </pre>
            </Panel>
          </div>
          {admin ? (
            <AdminChangeStatus deployment={d} />
          ) : (
            <WalletProvider>
              <ChangeStatus deployment={d} chainIds={chainIds} />
            </WalletProvider>
          )}
          <History id={d.id} createdAt={d.created_at} />
        </>
      )}
    </QueryState>
  );
}

function Record({ d }: { d: Deployment }) {
  return (
    <Panel title="Record">
      <dl className={styles.record}>
        <dt>Request</dt>
        <dd>
          <Copyable value={d.request_id} what="request ID" />
        </dd>
        <dt>Owner</dt>
        <dd>
          <Copyable value={d.user_address} what="owner address" />
        </dd>
        <dt>Worker</dt>
        <dd data-testid="deployment-worker">
          {d.worker_address ? (
            <Copyable value={d.worker_address} what="worker address" />
          ) : d.Status === "init" ? (
            "None yet: the first allowed worker that signs pick_up takes it."
          ) : (
            "None assigned (its status was changed by an admin)."
          )}
        </dd>
        <dt>Worker name</dt>
        <dd>{d.worker_name ?? "—"}</dd>
        <dt>Proposal</dt>
        <dd>
          {d.proposal_id ?? "—"}
          {d.proposal_hash ? (
            <>
              {" "}
              <Copyable value={d.proposal_hash} what="proposal hash" />
            </>
          ) : null}
        </dd>
        <dt>Created</dt>
        <dd>
          <RelativeTime value={d.created_at} />
        </dd>
      </dl>
    </Panel>
  );
}

/** Changes a page holds: a deployment's history has no end, so it is read a page at a time. */
const HISTORY_PAGE_SIZE = 25;

/** Every change, newest first, paged; the first page refreshes with the record. */
function History({ id, createdAt }: { id: number; createdAt: string }) {
  const { params, update } = useUrlState();
  const cursor = params.get("history_cursor") ?? undefined;
  const page = cursor ? positiveInt(params.get("history_page"), 2) : 1;
  const history = trpc.deployments.history.useQuery(
    { id, limit: HISTORY_PAGE_SIZE, cursor, include_total: true },
    {
      placeholderData: keepPreviousData,
      refetchInterval: refreshEvery(cursor ? false : REFRESH_MS),
    },
  );
  const data = history.data;
  const loadingPage = history.isPlaceholderData;
  return (
    <Panel title="History">
      <QueryState
        query={history}
        what="the history"
        isEmpty={(d) => d.history.length === 0 && page === 1}
        empty={
          <>
            Created <RelativeTime value={createdAt} />; no change yet.
          </>
        }
      >
        {(d) => (
          <div aria-busy={loadingPage}>
            <p className="muted small-text">Newest first.</p>
            <ol className={styles.timeline} data-testid="deployment-history">
              {d.history.map((h) => (
                <li key={h.id}>
                  <strong>
                    {h.from_status ? <StatusBadge status={h.from_status} /> : null} →{" "}
                    <StatusBadge status={h.to_status} />
                  </strong>{" "}
                  <RelativeTime value={h.created_at} />
                  <div className="muted">
                    <Signer signer={h.signer_address} nonce={h.nonce} />
                    {h.deployment_details ? ` · ${JSON.stringify(h.deployment_details)}` : ""}
                  </div>
                </li>
              ))}
            </ol>
          </div>
        )}
      </QueryState>
      {data && (page > 1 || data.next_cursor) && (
        <Pager
          noun="changes"
          page={page}
          pageSize={HISTORY_PAGE_SIZE}
          shown={data.history.length}
          total={data.total}
          hasPrevious={Boolean(data.prev_cursor) || page > 1}
          hasNext={Boolean(data.next_cursor)}
          busy={loadingPage || history.isPending}
          onPrevious={() =>
            page <= 2 || !data.prev_cursor
              ? update({ history_cursor: undefined, history_page: undefined })
              : update({ history_cursor: data.prev_cursor, history_page: page - 1 })
          }
          onNext={() =>
            update({ history_cursor: data.next_cursor ?? undefined, history_page: page + 1 })
          }
        />
      )}
    </Panel>
  );
}

/** Who made a change: the admin key, an admin wallet without a signature, or a signer. */
function Signer({ signer, nonce }: { signer: string; nonce: string }) {
  if (signer === ADMIN_SIGNER) return "changed by the admin";
  const address = <code title={signer}>{shortAddress(signer)}</code>;
  return nonce === "" ? <>changed by the admin {address}</> : <>signed by {address}</>;
}
