"use client";

import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { trpc } from "../trpc";
import { Button } from "../ui/button";
import { Copyable } from "../ui/copy-button";
import { formatNumber, plural } from "../ui/format";
import { Notice } from "../ui/notice";
import { PageHeader } from "../ui/page-header";
import { Panel } from "../ui/panel";
import { serverWords } from "../ui/problem";
import { QueryState } from "../ui/query-state";
import { ReadOnlyNotice } from "../ui/read-only-notice";
import { MaybeTime } from "../ui/relative-time";
import { StatusBadge } from "../ui/status-badge";
import { Table, Td, Th } from "../ui/table";
import { useRole } from "../use-role";
import { WebhookForm } from "./webhook-form";
import styles from "./webhooks.module.css";

/**
 * The webhook endpoints: each with its events and whether it is delivering, and a form to add
 * one (not for a viewer), whose signing secret is shown once, then never again.
 */
export function WebhooksPage({ retryWindowMs }: { retryWindowMs: number }) {
  const utils = trpc.useUtils();
  const webhooks = trpc.webhooks.list.useQuery();
  const create = trpc.webhooks.create.useMutation();
  const { role, canOperate } = useRole();
  const [adding, setAdding] = useState(false);
  const [made, setMade] = useState<{ id: string; url: string; secret: string }>();
  // An endpoint added: the focus goes to its secret (the form and its button are gone).
  const madeNotice = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (made) madeNotice.current?.focus();
  }, [made]);

  return (
    <>
      <PageHeader
        title="Webhooks"
        actions={
          canOperate &&
          !adding && (
            <Button
              variant="primary"
              onClick={() => {
                setMade(undefined);
                setAdding(true);
              }}
            >
              Add endpoint
            </Button>
          )
        }
      />
      <p className="muted">
        Events are sent to each endpoint signed as Standard Webhooks (the webhook-id, -timestamp and
        -signature headers); a delivery that fails is retried with back-off for up to{" "}
        {windowWords(retryWindowMs)} (the retry window).
      </p>
      {role && !canOperate && <ReadOnlyNotice role={role} what="webhooks" />}
      {canOperate && adding && (
        <WebhookForm
          label="Add a webhook endpoint"
          submitLabel="Add endpoint"
          onSubmit={async (fields) => {
            const created = await create.mutateAsync({
              url: fields.url,
              events: fields.events,
              ...(fields.description ? { description: fields.description } : {}),
            });
            setMade({ id: created.id, url: created.url, secret: created.secret });
            setAdding(false);
            await utils.webhooks.list.invalidate();
          }}
        />
      )}
      {made && (
        <Notice variant="info" testId="new-webhook-secret" ref={madeNotice} tabIndex={-1}>
          <p>
            Endpoint <Link href={`/dashboard/webhooks/${made.id}`}>{made.url}</Link> added. Its
            signing secret, to verify deliveries with: copy it now, it is not shown again.
          </p>
          <Copyable value={made.secret} what="signing secret" />
        </Notice>
      )}
      <Panel title="Endpoints">
        <QueryState
          query={webhooks}
          what="the webhook endpoints"
          isEmpty={(data) => data.webhooks.length === 0}
          empty="No endpoints yet."
        >
          {(data) => (
            <Table layout="cards">
              <thead>
                <tr>
                  <Th>URL</Th>
                  <Th>Events</Th>
                  <Th>State</Th>
                  <Th>Failing since</Th>
                </tr>
              </thead>
              <tbody>
                {data.webhooks.map((webhook) => (
                  <tr key={webhook.id} data-testid="webhook-row">
                    <Td label="URL" className={styles.url}>
                      <Link href={`/dashboard/webhooks/${webhook.id}`}>{webhook.url}</Link>
                      {webhook.description && <div className="muted">{webhook.description}</div>}
                    </Td>
                    <Td label="Events">
                      {webhook.events.map((type) => (
                        <div key={type}>
                          <code>{type}</code>
                        </div>
                      ))}
                    </Td>
                    <Td label="State">
                      <StatusBadge
                        status={webhook.enabled ? "enabled" : "disabled"}
                        tone={webhook.enabled ? "ok" : "danger"}
                      />
                      {webhook.disabled_reason && (
                        <div className="muted small-text">
                          {serverWords(webhook.disabled_reason)}
                        </div>
                      )}
                    </Td>
                    <Td label="Failing since">
                      <MaybeTime value={webhook.failing_since} none="—" />
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </QueryState>
      </Panel>
    </>
  );
}

/** The retry window in words: `24 hours`, `90 minutes`. */
function windowWords(ms: number): string {
  const hours = ms / 3_600_000;
  return Number.isInteger(hours)
    ? plural(hours, "hour")
    : `${formatNumber(Math.round(ms / 60_000))} minutes`;
}
