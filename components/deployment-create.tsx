"use client";

import Link from "next/link";
import { type FormEvent, useState } from "react";
import { createDeploymentInputSchema } from "@/server/deployments/schema";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { Field } from "./ui/field";
import { formWords } from "./ui/format";
import { Input } from "./ui/input";
import { type Outcome, OutcomeMessage } from "./ui/notice";
import { Panel } from "./ui/panel";
import { fieldErrorsOf, problemOf } from "./ui/problem";
import { useFocusFirstInvalid } from "./ui/use-focus-first-invalid";

const PROPOSAL_NUMBERS = [
  ["init_cost", "Initial cost"],
  ["maintenance_cost", "Maintenance cost"],
  ["pay_period", "Pay period"],
  ["cost", "Cost"],
  ["fit", "Fit"],
  ["throughput", "Throughput"],
  ["sla", "SLA"],
  ["error_rate", "Error rate"],
  ["rank", "Rank"],
] as const;

/** Creates a deployment for an owner (admins), checked with the server's schema first. */
export function CreateDeployment() {
  const utils = trpc.useUtils();
  const create = trpc.deployments.create.useMutation();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [outcome, setOutcome] = useState<Outcome>();
  const [made, setMade] = useState<{ id: number; request_id: string }>();
  const { form: formRef, focusFirstInvalid } = useFocusFirstInvalid();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setOutcome(undefined);
    setMade(undefined);
    const form = event.currentTarget;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? "").trim();
    const input = {
      user_address: text("user_address"),
      ...(text("request_id") ? { request_id: text("request_id") } : {}),
      ...(text("proposal_id") ? { proposal_id: Number(text("proposal_id")) } : {}),
      proposal: {
        accept_currency: text("accept_currency"),
        ...Object.fromEntries(
          PROPOSAL_NUMBERS.map(([name]) => [
            name,
            text(name) === "" ? undefined : Number(text(name)),
          ]),
        ),
      },
    };
    const parsed = createDeploymentInputSchema.safeParse(input);
    if (!parsed.success) {
      setErrors(
        Object.fromEntries(
          parsed.error.issues.map((i) => [i.path.join("."), formWords(i.message)]),
        ),
      );
      setOutcome({ ok: false, text: "Not created: correct the fields marked." });
      focusFirstInvalid();
      return;
    }
    setErrors({});
    try {
      const created = await create.mutateAsync(parsed.data);
      await utils.deployments.invalidate();
      setMade(created);
      setOutcome({ ok: true, text: `Created deployment #${created.id} (${created.request_id}).` });
      form.reset();
    } catch (error) {
      const problem = problemOf(error);
      setErrors(fieldErrorsOf(problem));
      setOutcome({ ok: false, text: `Not created: ${problem.detail}` });
      focusFirstInvalid();
    }
  }

  const input = (name: string, label: string, path = name) => (
    <Field key={name} name={`new-${name}`} label={label} error={errors[path]}>
      {(control) => <Input {...control} name={name} />}
    </Field>
  );

  return (
    <Panel as="form" ref={formRef} title="New deployment" onSubmit={submit} noValidate>
      <div className="form-grid">
        {input("user_address", "Owner address")}
        {input("request_id", "Request ID (optional)")}
        {input("proposal_id", "Proposal ID (optional)")}
        {input("accept_currency", "Currency", "proposal.accept_currency")}
        {PROPOSAL_NUMBERS.map(([name, label]) => input(name, label, `proposal.${name}`))}
      </div>
      <div className="row">
        <Button type="submit" variant="primary" disabled={create.isPending}>
          Create deployment
        </Button>
        <OutcomeMessage outcome={outcome} />
        {made && <Link href={`/dashboard/deployments/${made.id}`}>Open #{made.id}</Link>}
      </div>
    </Panel>
  );
}
