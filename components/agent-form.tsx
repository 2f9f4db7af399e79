"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from "react";
import { type Agent, agentInputSchema, autonomousPromptProblem } from "@/server/agents/schema";
import styles from "./agent-form.module.css";
import { readAgentForm } from "./agent-form-data";
import { AgentFormSections, type NewAgentDefaults } from "./agent-form-sections";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { Field } from "./ui/field";
import { fieldLabel, formWords } from "./ui/format";
import { Input } from "./ui/input";
import { LeaveGuard } from "./ui/leave-guard";
import type { Outcome } from "./ui/notice";
import { OutcomeMessage } from "./ui/notice";
import { Panel } from "./ui/panel";
import { fieldErrorsOf, problemOf, UNREACHABLE } from "./ui/problem";
import { Textarea } from "./ui/textarea";
import { useFocusFirstInvalid } from "./ui/use-focus-first-invalid";

export type { NewAgentDefaults } from "./agent-form-sections";

type Errors = Record<string, ReactNode>;

/**
 * Creates an agent (no `agent`; an ID in use is refused, never overwritten) or edits one;
 * validated with the server's own schema before sending, errors shown beside their fields (in
 * the form's words), the focus on the first to correct. Edits not saved yet are not dropped
 * without a word: leaving the page asks first. `readOnly` (a viewer's): the agent's settings
 * shown in their fields, none of which can be changed, and no Save.
 */
export function AgentForm({
  agent,
  defaults,
  outcome,
  onOutcome,
  readOnly = false,
}: {
  agent?: Agent;
  defaults?: NewAgentDefaults;
  outcome?: Outcome;
  onOutcome?: (outcome: Outcome | undefined) => void;
  readOnly?: boolean;
}) {
  const router = useRouter();
  const utils = trpc.useUtils();
  const create = trpc.agents.create.useMutation();
  const update = trpc.agents.upsert.useMutation();
  const [errors, setErrors] = useState<Errors>({});
  const [ownOutcome, setOwnOutcome] = useState<Outcome>();
  const { form, focusFirstInvalid } = useFocusFirstInvalid();
  const dirty = useDirty(form, agent);
  const shown = onOutcome ? outcome : ownOutcome;
  const report = onOutcome ?? setOwnOutcome;
  const pending = create.isPending || update.isPending;

  function refuse(found: Errors, text: string) {
    setErrors(found);
    report({ ok: false, text });
    focusFirstInvalid();
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    report(undefined);
    const input = readAgentForm(new FormData(event.currentTarget), agent);
    const parsed = agentInputSchema.safeParse(input);
    const found: Errors = {};
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        found[issue.path.join(".") || "form"] ??= formWords(issue.message);
    }
    const crossField = autonomousPromptProblem({
      autonomous_enabled: Boolean(input.autonomous_enabled),
      autonomous_prompt: (input.autonomous_prompt as string | null) ?? null,
    });
    if (crossField) found.autonomous_prompt = formWords(crossField);
    if (Object.keys(found).length > 0 || !parsed.success) {
      // What no field of the form shows is said in the sentence itself (in the form's words).
      const elsewhere = Object.entries(found)
        .filter(([name]) => !form.current?.elements.namedItem(name))
        .map(([name, detail]) => `${fieldLabel(name) ?? "the agent"} ${detail}`);
      refuse(
        found,
        elsewhere.length > 0
          ? `Not saved: ${elsewhere.join("; ")}.`
          : "Not saved: correct the fields marked.",
      );
      return;
    }
    setErrors({});
    try {
      if (agent) {
        await update.mutateAsync(parsed.data);
        await utils.agents.invalidate();
        report({ ok: true, text: "Saved." });
      } else {
        const created = await create.mutateAsync(parsed.data);
        dirty.saved();
        await utils.agents.list.invalidate();
        router.push(`/dashboard/agents/${created.aid}?created=1`);
      }
    } catch (error) {
      const problem = problemOf(error);
      const byField: Errors = fieldErrorsOf(problem);
      if (problem.code === "agent_exists") {
        const aid = String(parsed.data.aid);
        byField.aid = (
          <>
            An agent with this ID exists already:{" "}
            <Link href={`/dashboard/agents/${aid}`}>open {aid}</Link>, or choose another ID.
          </>
        );
      }
      refuse(
        byField,
        problem.detail === UNREACHABLE
          ? `Not saved: ${UNREACHABLE} Your changes are still here: save again once the service answers.`
          : `Not saved: ${problem.detail}`,
      );
    }
  }

  const text = (
    name: string,
    label: string,
    value: string | number | null | undefined,
    hint?: string,
  ) => (
    <Field name={name} label={label} hint={hint} error={errors[name]}>
      {(control) => <Input {...control} defaultValue={value ?? ""} />}
    </Field>
  );

  const fields = (
    <>
      <div className="form-grid">
        {!agent &&
          text(
            "aid",
            "Agent ID",
            undefined,
            "Lowercase letters, digits and hyphens; starts with a letter. It cannot be changed later.",
          )}
        {text("name", "Name", agent?.name, agent ? undefined : "Empty = the agent ID.")}
        {text("model", "Model", agent?.model, "Empty = the model provider's default.")}
        <Field
          name="temperature"
          label="Temperature"
          hint="0 to 2; empty = the model's default."
          error={errors.temperature}
        >
          {(control) => (
            <Input {...control} inputMode="decimal" defaultValue={agent?.temperature ?? ""} />
          )}
        </Field>
      </div>
      <Field name="prompt" label="System prompt" error={errors.prompt}>
        {(control) => <Textarea {...control} defaultValue={agent?.prompt ?? ""} />}
      </Field>
      <AgentFormSections agent={agent} defaults={defaults} errors={errors} />
    </>
  );

  if (readOnly)
    return (
      <Panel as="form" noValidate aria-label="The agent's configuration">
        <fieldset disabled className={styles.readOnly}>
          {fields}
        </fieldset>
      </Panel>
    );
  return (
    <Panel
      as="form"
      ref={form}
      onSubmit={submit}
      onChange={dirty.check}
      noValidate
      aria-label={agent ? "Edit agent" : "New agent"}
    >
      {fields}
      <div className="row">
        <Button type="submit" variant="primary" disabled={pending}>
          {pending ? "Saving…" : agent ? "Save changes" : "Create agent"}
        </Button>
        <OutcomeMessage outcome={shown} />
      </div>
      <LeaveGuard active={dirty.dirty} title="Leave without saving?">
        {agent
          ? `Your changes to ${agent.aid} are not saved; leaving drops them.`
          : "This agent is not created yet; leaving drops what you typed."}
      </LeaveGuard>
    </Panel>
  );
}

/**
 * Whether the form holds edits not saved: what it would send differs from what it held when it
 * opened. (After a save, the agent page remounts the form with the saved agent.)
 */
function useDirty(form: React.RefObject<HTMLFormElement | null>, agent: Agent | undefined) {
  const opened = useRef<string>(undefined);
  const [dirty, setDirty] = useState(false);
  const now = () =>
    form.current ? JSON.stringify(readAgentForm(new FormData(form.current), agent)) : "";
  // biome-ignore lint/correctness/useExhaustiveDependencies: what the form held when it opened.
  useEffect(() => {
    opened.current = now();
  }, []);
  return {
    dirty,
    check: () => setDirty(now() !== opened.current),
    saved: () => setDirty(false),
  };
}
