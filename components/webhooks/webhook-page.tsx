"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { trpc } from "../trpc";
import { Button } from "../ui/button";
import { ConfirmDialog } from "../ui/confirm-dialog";
import { Copyable } from "../ui/copy-button";
import { Notice, type Outcome, OutcomeMessage } from "../ui/notice";
import { PageHeader } from "../ui/page-header";
import { Panel } from "../ui/panel";
import { problemOf, serverWords } from "../ui/problem";
import { QueryState } from "../ui/query-state";
import { ReadOnlyNotice } from "../ui/read-only-notice";
import { MaybeTime } from "../ui/relative-time";
import { StatusBadge } from "../ui/status-badge";
import { useRole } from "../use-role";
import { Deliveries } from "./deliveries";
import { WebhookForm } from "./webhook-form";
import styles from "./webhooks.module.css";

/**
 * One webhook endpoint: what it subscribes to and whether it delivers (with why not), and what
 * an admin does with it: edit, enable or disable, send a test event, rotate the signing secret
 * (the new one shown once), delete; then its deliveries, newest first, each retried on demand.
 * A viewer sees the endpoint and its deliveries only.
 */
export function WebhookPage({ id }: { id: string }) {
  const router = useRouter();
  const utils = trpc.useUtils();
  const webhook = trpc.webhooks.get.useQuery({ id });
  const update = trpc.webhooks.update.useMutation();
  const rotate = trpc.webhooks.rotateSecret.useMutation();
  const remove = trpc.webhooks.delete.useMutation();
  const test = trpc.webhooks.test.useMutation();
  const { role, canOperate } = useRole();
  const [editing, setEditing] = useState(false);
  const [secret, setSecret] = useState<string>();
  const [outcome, setOutcome] = useState<Outcome>();
  const refresh = () =>
    Promise.all([utils.webhooks.get.invalidate({ id }), utils.webhooks.deliveries.invalidate()]);

  async function act(work: () => Promise<unknown>, done: string) {
    setOutcome(undefined);
    try {
      await work();
      await refresh();
      setOutcome({ ok: true, text: done });
    } catch (error) {
      setOutcome({ ok: false, text: `Not done: ${problemOf(error).detail}` });
    }
  }

  return (
    <QueryState
      query={webhook}
      what="the webhook endpoint"
      afterError={<Link href="/dashboard/webhooks">Back to webhooks</Link>}
    >
      {(w) => (
        <>
          <PageHeader
            title={<span className={styles.url}>{w.url}</span>}
            detail={
              <StatusBadge
                status={w.enabled ? "enabled" : "disabled"}
                tone={w.enabled ? "ok" : "danger"}
                testId="webhook-state"
              />
            }
            actions={
              canOperate && (
                <ConfirmDialog
                  trigger="Delete endpoint"
                  title="Delete this webhook endpoint?"
                  confirmLabel="Delete endpoint"
                  onConfirm={async () => {
                    await remove.mutateAsync({ id });
                    await utils.webhooks.list.invalidate();
                    router.replace("/dashboard/webhooks");
                  }}
                >
                  <p>Nothing more is sent to it; its deliveries, pending ones too, go with it.</p>
                </ConfirmDialog>
              )
            }
          />
          {role && !canOperate && <ReadOnlyNotice role={role} what="webhooks" />}
          {w.disabled_reason && <Notice variant="error">{serverWords(w.disabled_reason)}</Notice>}
          <Panel title="Endpoint">
            <p>
              <Copyable value={w.id} what="endpoint ID" />{" "}
              {w.description && <span className="muted">{w.description}</span>}
            </p>
            <p>
              Events:{" "}
              {w.events.map((type) => (
                <code key={type}>{type} </code>
              ))}
              <br />
              Failing since: <MaybeTime value={w.failing_since} none="not failing" />
            </p>
            {canOperate && (
              <div className="row">
                <Button onClick={() => act(() => test.mutateAsync({ id }), "Test event sent.")}>
                  Send test event
                </Button>
                <Button
                  onClick={() =>
                    act(
                      () => update.mutateAsync({ id, enabled: !w.enabled }),
                      w.enabled ? "Disabled." : "Enabled: pending deliveries are sent again.",
                    )
                  }
                >
                  {w.enabled ? "Disable" : "Enable"}
                </Button>
                <Button onClick={() => setEditing((open) => !open)}>
                  {editing ? "Close the form" : "Edit"}
                </Button>
                <ConfirmDialog
                  trigger="Rotate secret"
                  title="Rotate the signing secret?"
                  confirmLabel="Rotate secret"
                  onConfirm={async () => {
                    setSecret((await rotate.mutateAsync({ id })).secret);
                  }}
                >
                  <p>
                    Deliveries are signed with a new secret from now on; the receiver must verify
                    with it. The old one stops working at once.
                  </p>
                </ConfirmDialog>
              </div>
            )}
            <OutcomeMessage outcome={outcome} />
            {secret && (
              <Notice variant="info" testId="rotated-secret">
                <p>The new signing secret: copy it now, it is not shown again.</p>
                <Copyable value={secret} what="signing secret" />
              </Notice>
            )}
          </Panel>
          {canOperate && editing && (
            <WebhookForm
              webhook={w}
              label="Edit the webhook endpoint"
              submitLabel="Save"
              onSubmit={async (fields) => {
                await update.mutateAsync({ id, ...fields });
                await refresh();
                setEditing(false);
                setOutcome({ ok: true, text: "Saved." });
              }}
            />
          )}
          <Deliveries id={id} />
          <p>
            <Link href="/dashboard/webhooks">Back to webhooks</Link>
          </p>
        </>
      )}
    </QueryState>
  );
}
