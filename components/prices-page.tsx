"use client";

import { type FormEvent, useState } from "react";
import { setPriceInputSchema } from "@/server/prices/schema";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { ConfirmDialog } from "./ui/confirm-dialog";
import { Field } from "./ui/field";
import { formatCost, formWords } from "./ui/format";
import { Input } from "./ui/input";
import { type Outcome, OutcomeMessage } from "./ui/notice";
import { PageHeader } from "./ui/page-header";
import { Panel } from "./ui/panel";
import { fieldErrorsOf, problemOf } from "./ui/problem";
import { QueryState } from "./ui/query-state";
import { ReadOnlyNotice } from "./ui/read-only-notice";
import { RelativeTime } from "./ui/relative-time";
import { Table, Td, Th } from "./ui/table";
import { useFocusFirstInvalid } from "./ui/use-focus-first-invalid";
import { useRole } from "./use-role";

/**
 * The price table: what a million input and output tokens of each model cost. Replies are
 * priced when they are stored, so a change prices what comes after it, not what came before.
 * A viewer sees the table only.
 */
export function PricesPage() {
  const prices = trpc.prices.list.useQuery();
  const utils = trpc.useUtils();
  const remove = trpc.prices.delete.useMutation({ onSuccess: () => utils.prices.invalidate() });
  const { role, canOperate } = useRole();
  return (
    <>
      <PageHeader title="Prices" />
      <p className="hint">
        The price of a million tokens, in your currency, for each model agents use. A reply is
        priced when it is stored: a change here prices the replies after it. A model without a price
        gives replies whose cost is unknown, not zero. MODEL_PRICES sets prices at start-up.
      </p>
      {role && !canOperate && <ReadOnlyNotice role={role} what="prices" />}
      {canOperate && <PriceForm />}
      <QueryState
        query={prices}
        what="prices"
        isEmpty={(data) => data.prices.length === 0}
        empty="No prices yet: every reply's cost is unknown."
      >
        {(data) => (
          <Table layout="cards" data-testid="prices">
            <thead>
              <tr>
                <Th>Model</Th>
                <Th numeric>Input, per million</Th>
                <Th numeric>Output, per million</Th>
                <Th>Set</Th>
                {canOperate && (
                  <Th>
                    <span className="sr-only">Actions</span>
                  </Th>
                )}
              </tr>
            </thead>
            <tbody>
              {data.prices.map((price) => (
                <tr key={price.model}>
                  <Td label="Model">
                    <code>{price.model}</code>
                  </Td>
                  <Td label="Input, per million" numeric>
                    {formatCost(price.input_per_million)}
                  </Td>
                  <Td label="Output, per million" numeric>
                    {formatCost(price.output_per_million)}
                  </Td>
                  <Td label="Set">
                    <RelativeTime value={price.updated_at} />
                  </Td>
                  {canOperate && (
                    <Td label="Actions">
                      <ConfirmDialog
                        trigger="Delete"
                        title={`Delete the price of ${price.model}?`}
                        confirmLabel="Delete price"
                        onConfirm={() => remove.mutateAsync({ model: price.model })}
                      >
                        <p>Replies stored from now on have no cost. Stored costs stay.</p>
                      </ConfirmDialog>
                    </Td>
                  )}
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </QueryState>
    </>
  );
}

/** Sets a model's price, new or changed; checked with the server's own schema first. */
function PriceForm() {
  const utils = trpc.useUtils();
  const set = trpc.prices.set.useMutation();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [outcome, setOutcome] = useState<Outcome>();
  const { form: formRef, focusFirstInvalid } = useFocusFirstInvalid();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const number = (name: string) => {
      const text = String(data.get(name) ?? "").trim();
      return text === "" ? Number.NaN : Number(text);
    };
    const input = {
      model: String(data.get("model") ?? ""),
      input_per_million: number("input_per_million"),
      output_per_million: number("output_per_million"),
    };
    const parsed = setPriceInputSchema.safeParse(input);
    if (!parsed.success) {
      setErrors(
        Object.fromEntries(
          parsed.error.issues.map((issue) => [issue.path.join("."), formWords(issue.message)]),
        ),
      );
      setOutcome(undefined);
      focusFirstInvalid();
      return;
    }
    setErrors({});
    try {
      const saved = await set.mutateAsync(parsed.data);
      await utils.prices.invalidate();
      setOutcome({ ok: true, text: `Saved the price of ${saved.model}.` });
      form.reset();
    } catch (caught) {
      const problem = problemOf(caught);
      setErrors(fieldErrorsOf(problem));
      setOutcome({
        ok: false,
        text: problem.unreachable
          ? `Not saved: ${problem.detail} The price is still in the form: set it again once the service answers.`
          : `Not saved: ${problem.detail}`,
      });
      focusFirstInvalid();
    }
  }

  return (
    <Panel as="form" ref={formRef} onSubmit={submit} noValidate aria-label="Set a price">
      <div className="form-grid">
        <Field
          name="model"
          label="Model"
          hint="As agents name it, e.g. gpt-4o-mini"
          error={errors.model}
        >
          {(control) => <Input {...control} autoComplete="off" />}
        </Field>
        <Field
          name="input_per_million"
          label="Input, per million tokens"
          error={errors.input_per_million}
        >
          {(control) => <Input {...control} inputMode="decimal" />}
        </Field>
        <Field
          name="output_per_million"
          label="Output, per million tokens"
          error={errors.output_per_million}
        >
          {(control) => <Input {...control} inputMode="decimal" />}
        </Field>
      </div>
      <div className="row">
        <Button type="submit" variant="primary" disabled={set.isPending}>
          {set.isPending ? "Saving…" : "Set price"}
        </Button>
        <OutcomeMessage outcome={outcome} />
      </div>
    </Panel>
  );
}
