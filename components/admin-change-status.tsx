"use client";

import { useState } from "react";
import type { z } from "zod";
import type { deploymentSchema } from "@/server/deployments/schema";
import { allowedNext, FINAL_STATUSES } from "@/server/deployments/view";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { ConfirmDialog } from "./ui/confirm-dialog";
import { Field } from "./ui/field";
import { Input } from "./ui/input";
import { readJsonObject } from "./ui/json-text";
import { type Outcome, OutcomeMessage } from "./ui/notice";
import { Panel } from "./ui/panel";
import { FormProblem, fieldErrorsOf, problemOf } from "./ui/problem";
import { Select } from "./ui/select";
import { statusLabel } from "./ui/status-badge";
import { useFocusFirstInvalid } from "./ui/use-focus-first-invalid";

type Deployment = z.output<typeof deploymentSchema>;

/**
 * The admin's own change of a deployment's status: no wallet and no signature (the admin's
 * session is the authority), by the same status machine as a worker's signed change, recorded
 * in the history as the admin's. Cancelling asks first, since a cancelled deployment is final.
 * Details that are not a JSON object are refused beside their field, saying where, before
 * anything is sent.
 */
export function AdminChangeStatus({ deployment }: { deployment: Deployment }) {
  const utils = trpc.useUtils();
  const change = trpc.deployments.changeStatus.useMutation();
  const [next, setNext] = useState("");
  const [details, setDetails] = useState("");
  const [outcome, setOutcome] = useState<Outcome>();
  const [detailsError, setDetailsError] = useState<string>();
  const { form: panel, focusFirstInvalid } = useFocusFirstInvalid<HTMLElement>();
  const options = allowedNext(deployment.Status).filter((status) => status !== "cancelled");
  const cancellable = allowedNext(deployment.Status).includes("cancelled");

  /** The details as an object; undefined when refused (said beside the field, focused). */
  function readDetails(): { value: Record<string, unknown> | undefined } | undefined {
    const read = readJsonObject(details);
    if (read.ok) return { value: read.value };
    setDetailsError(`The details ${read.problem}`);
    focusFirstInvalid();
    return undefined;
  }

  async function apply(status: string, deploymentDetails: Record<string, unknown> | undefined) {
    await change.mutateAsync({
      id: deployment.id,
      status: status as Deployment["Status"],
      ...(deploymentDetails ? { deployment_details: deploymentDetails } : {}),
    });
    setNext("");
    setDetails("");
    await utils.deployments.invalidate();
  }

  async function submit() {
    setOutcome(undefined);
    setDetailsError(undefined);
    const read = readDetails();
    if (!read) {
      setOutcome({ ok: false, text: "Not changed: correct the details." });
      return;
    }
    try {
      await apply(next, read.value);
      setOutcome({ ok: true, text: `Moved to ${statusLabel(next)}.` });
    } catch (error) {
      const problem = problemOf(error);
      const byField = fieldErrorsOf(problem);
      if (byField.deployment_details) {
        setDetailsError(`The details ${byField.deployment_details}`);
        focusFirstInvalid();
      }
      setOutcome({ ok: false, text: `Not changed: ${problem.detail}` });
    }
  }

  if (FINAL_STATUSES.includes(deployment.Status))
    return (
      <Panel title="Change status">
        <p className="muted" data-testid="no-change">
          {statusLabel(deployment.Status)} is final: nothing can change it.
        </p>
      </Panel>
    );

  return (
    <Panel
      ref={panel}
      title="Change status"
      actions={
        cancellable && (
          <ConfirmDialog
            trigger="Cancel deployment"
            title={`Cancel deployment #${deployment.id}?`}
            confirmLabel="Cancel deployment"
            dismissLabel="Keep deployment"
            onConfirm={async () => {
              const read = readJsonObject(details);
              if (!read.ok)
                throw new FormProblem(
                  `The details ${read.problem} Correct them or empty the field, then cancel again.`,
                );
              await apply("cancelled", read.value);
              setOutcome({ ok: true, text: "Cancelled." });
            }}
          >
            <p>
              A cancelled deployment is final: no worker can pick it up or change it again. The
              history records the change as yours.
            </p>
          </ConfirmDialog>
        )
      }
    >
      <p className="muted">
        As the admin: no wallet is needed, and the history records the change as the admin's.
      </p>
      <div className="form-grid">
        <Field name="admin-next-status" label="New status">
          {(control) => (
            <Select {...control} value={next} onChange={(event) => setNext(event.target.value)}>
              <option value="">Choose…</option>
              {options.map((option) => (
                <option key={option} value={option}>
                  {statusLabel(option)}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field
          name="admin-next-details"
          label="Deployment details (JSON, optional)"
          error={detailsError}
        >
          {(control) => (
            <Input
              {...control}
              value={details}
              onChange={(event) => {
                setDetails(event.target.value);
                setDetailsError(undefined);
              }}
              placeholder='{"reason":"…"}'
            />
          )}
        </Field>
      </div>
      <div className="row">
        <Button variant="primary" disabled={!next || change.isPending} onClick={submit}>
          {change.isPending ? "Applying…" : "Apply"}
        </Button>
      </div>
      <p>
        <OutcomeMessage outcome={outcome} />
      </p>
    </Panel>
  );
}
