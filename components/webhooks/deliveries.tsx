"use client";

import { useState } from "react";
import type { WebhookDelivery } from "@/server/webhooks/schema";
import { WEBHOOK_DELIVERY_STATUSES } from "@/server/webhooks/view";
import { refreshEvery, trpc } from "../trpc";
import { Button } from "../ui/button";
import { Field } from "../ui/field";
import { type Outcome, OutcomeMessage } from "../ui/notice";
import { Panel } from "../ui/panel";
import { problemOf } from "../ui/problem";
import { QueryState } from "../ui/query-state";
import { MaybeTime, RelativeTime } from "../ui/relative-time";
import { Select } from "../ui/select";
import { StatusBadge } from "../ui/status-badge";
import { Table, Td, Th } from "../ui/table";
import { useRole } from "../use-role";
import styles from "./webhooks.module.css";

const PAGE = 20;
const TONE = { pending: "warn", delivered: "ok", failed: "danger" } as const;

/**
 * An endpoint's deliveries, newest first, a page at a time (refreshed every few seconds while
 * the newest page shows), filtered by state; each with its last attempt (the receiver's status
 * and first bytes, or why it failed) and a Retry (not for a viewer).
 */
export function Deliveries({ id }: { id: string }) {
  const utils = trpc.useUtils();
  const [status, setStatus] = useState<(typeof WEBHOOK_DELIVERY_STATUSES)[number]>();
  /** The cursors of the pages before this one: Newer goes back one. */
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const deliveries = trpc.webhooks.deliveries.useQuery(
    { id, limit: PAGE, ...(cursor ? { cursor } : {}), ...(status ? { status } : {}) },
    { refetchInterval: refreshEvery(cursor ? false : 3_000) },
  );
  const retry = trpc.webhooks.retryDelivery.useMutation();
  const { canOperate } = useRole();
  const [outcome, setOutcome] = useState<Outcome>();

  async function retryOne(delivery: WebhookDelivery) {
    setOutcome(undefined);
    try {
      await retry.mutateAsync({ id, delivery_id: delivery.id });
      await utils.webhooks.deliveries.invalidate();
      setOutcome({
        ok: true,
        text: `The ${delivery.event_type} delivery (${delivery.id}) is being sent again.`,
      });
    } catch (error) {
      setOutcome({ ok: false, text: `Not retried: ${problemOf(error).detail}` });
    }
  }

  return (
    <Panel
      title="Deliveries"
      actions={
        <Field name="delivery-status" label="State">
          {(control) => (
            <Select
              {...control}
              value={status ?? ""}
              onChange={(event) => {
                const value = event.currentTarget.value;
                setStatus(value === "" ? undefined : (value as typeof status));
                setCursors([]);
              }}
            >
              <option value="">All</option>
              {WEBHOOK_DELIVERY_STATUSES.map((state) => (
                <option key={state} value={state}>
                  {state}
                </option>
              ))}
            </Select>
          )}
        </Field>
      }
    >
      <OutcomeMessage outcome={outcome} />
      <QueryState
        query={deliveries}
        what="the deliveries"
        isEmpty={(data) => data.deliveries.length === 0 && !cursor}
        empty="No deliveries yet."
      >
        {(data) => (
          <>
            <Table layout="cards">
              <thead>
                <tr>
                  <Th>Event</Th>
                  <Th>State</Th>
                  <Th>Last attempt</Th>
                  <Th>Next</Th>
                  {canOperate && <Th>Action</Th>}
                </tr>
              </thead>
              <tbody>
                {data.deliveries.map((delivery) => {
                  const last = delivery.attempts.at(-1);
                  return (
                    <tr key={delivery.id} data-testid="delivery-row">
                      <Td label="Event">
                        <code>{delivery.event_type}</code>
                        <div className="muted small-text">
                          <RelativeTime value={delivery.created_at} /> ·{" "}
                          <span className={styles.url}>{delivery.webhook_id}</span>
                        </div>
                      </Td>
                      <Td label="State">
                        <StatusBadge status={delivery.status} tone={TONE[delivery.status]} />
                        <div className="muted small-text">
                          {delivery.attempt_count} attempt{delivery.attempt_count === 1 ? "" : "s"}
                        </div>
                      </Td>
                      <Td label="Last attempt">
                        {last ? (
                          <>
                            {last.status_code === null ? "no answer" : `HTTP ${last.status_code}`},{" "}
                            {Math.round(last.duration_ms)} ms
                            {last.error && <div className="muted small-text">{last.error}</div>}
                            {last.response_excerpt && (
                              <div className={styles.excerpt}>{last.response_excerpt}</div>
                            )}
                          </>
                        ) : (
                          <span className="muted">not tried yet</span>
                        )}
                      </Td>
                      <Td label="Next">
                        <MaybeTime value={delivery.next_attempt_at} none="—" />
                      </Td>
                      {canOperate && (
                        <Td label="Action">
                          <Button
                            size="small"
                            disabled={retry.isPending}
                            onClick={() => retryOne(delivery)}
                            aria-describedby={`delivery-${delivery.id}`}
                          >
                            Retry delivery
                          </Button>
                          <span id={`delivery-${delivery.id}`} className="sr-only">
                            {delivery.event_type}, delivery {delivery.id}
                          </span>
                        </Td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </Table>
            <div className="row">
              {cursor && (
                <Button size="small" onClick={() => setCursors((all) => all.slice(0, -1))}>
                  Newer
                </Button>
              )}
              {data.next_cursor && (
                <Button
                  size="small"
                  onClick={() => setCursors((all) => [...all, data.next_cursor as string])}
                >
                  Older
                </Button>
              )}
            </div>
          </>
        )}
      </QueryState>
    </Panel>
  );
}
