"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { type Agent, agentInputSchema, autonomousPromptProblem } from "@/server/agents/schema";
import { QUOTA_LIMIT_FIELDS, type QuotaLimitField } from "@/server/quota/schema";
import { cronProblem } from "@/server/schedules/schema";
import { describeCron } from "@/server/schedules/view";
import { readAgentForm } from "./agent-form-data";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { CheckboxField, Field } from "./ui/field";
import { formNumber, formWords } from "./ui/format";
import { Input } from "./ui/input";
import type { Outcome } from "./ui/notice";
import { OutcomeMessage } from "./ui/notice";
import { Panel } from "./ui/panel";
import { fieldErrorsOf, problemOf } from "./ui/problem";
import { Select } from "./ui/select";
import { Textarea } from "./ui/textarea";

type Errors = Record<string, React.ReactNode>;

const LIMIT_LABELS: Record<QuotaLimitField, string> = {
  message_limit_total: "Messages in total",
  message_limit_monthly: "Messages per month",
  message_limit_daily: "Messages per day",
  autonomous_limit_total: "Autonomous runs in total",
  autonomous_limit_monthly: "Autonomous runs per month",
  token_limit_total: "Tokens in total",
  token_limit_monthly: "Tokens per month",
  token_limit_daily: "Tokens per day",
};

/** What a new agent gets for what is left empty: the service's configured defaults. */
export type NewAgentDefaults = {
  quota: Record<QuotaLimitField, number | null>;
  rate_limit_rpm: number | null;
};

/**
 * Creates an agent (no `agent`; an ID in use is refused, never overwritten) or edits one;
 * validated with the server's own schema before sending, errors shown beside their fields.
 */
export function AgentForm({
  agent,
  defaults,
  outcome,
  onOutcome,
}: {
  agent?: Agent;
  defaults?: NewAgentDefaults;
  outcome?: Outcome;
  onOutcome?: (outcome: Outcome | undefined) => void;
}) {
  const router = useRouter();
  const utils = trpc.useUtils();
  const create = trpc.agents.create.useMutation();
  const update = trpc.agents.upsert.useMutation();
  const [errors, setErrors] = useState<Errors>({});
  const [ownOutcome, setOwnOutcome] = useState<Outcome>();
  const [cron, setCron] = useState(agent?.autonomous_cron ?? "");
  const [zone, setZone] = useState(agent?.autonomous_timezone ?? "UTC");
  const shown = onOutcome ? outcome : ownOutcome;
  const report = onOutcome ?? setOwnOutcome;
  const pending = create.isPending || update.isPending;

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
    if (crossField) found.autonomous_prompt = crossField;
    setErrors(found);
    if (Object.keys(found).length > 0 || !parsed.success) {
      report({ ok: false, text: "Not saved: correct the fields marked." });
      return;
    }
    try {
      if (agent) {
        await update.mutateAsync(parsed.data);
        await utils.agents.invalidate();
        report({ ok: true, text: "Saved." });
      } else {
        const created = await create.mutateAsync(parsed.data);
        await utils.agents.list.invalidate();
        router.push(`/dashboard/agents/${created.aid}?created=1`);
      }
    } catch (error) {
      const problem = problemOf(error);
      const byField: Errors = Object.fromEntries(
        Object.entries(fieldErrorsOf(problem)).map(([field, detail]) => [field, formWords(detail)]),
      );
      if (problem.code === "agent_exists") {
        const aid = String(parsed.data.aid);
        byField.aid = (
          <>
            An agent with this ID exists already:{" "}
            <Link href={`/dashboard/agents/${aid}`}>open {aid}</Link>, or choose another ID.
          </>
        );
      }
      setErrors(byField);
      report({ ok: false, text: `Not saved: ${formWords(problem.detail)}` });
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

  return (
    <Panel as="form" onSubmit={submit} noValidate aria-label={agent ? "Edit agent" : "New agent"}>
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
      <Panel as="fieldset">
        <legend>Autonomous mode</legend>
        <CheckboxField
          name="autonomous_enabled"
          label="Run on a schedule"
          defaultChecked={agent?.autonomous_enabled}
        />
        <div className="form-grid">
          <Field
            name="autonomous_cron"
            label="Cron schedule"
            hint={cronHint(cron, zone)}
            error={errors.autonomous_cron}
          >
            {(control) => (
              <Input
                {...control}
                spellCheck={false}
                autoComplete="off"
                defaultValue={agent?.autonomous_cron ?? ""}
                onChange={(event) => setCron(event.currentTarget.value)}
              />
            )}
          </Field>
          <Field
            name="autonomous_timezone"
            label="Time zone"
            hint="Its IANA name: UTC, Europe/Berlin, America/New_York…"
            error={errors.autonomous_timezone}
          >
            {(control) => (
              <Input
                {...control}
                autoComplete="off"
                defaultValue={agent?.autonomous_timezone ?? "UTC"}
                onChange={(event) => setZone(event.currentTarget.value)}
              />
            )}
          </Field>
        </div>
        <Field
          name="autonomous_minutes"
          label="Every (minutes)"
          hint="Used when there is no cron schedule."
          error={errors.autonomous_minutes}
        >
          {(control) => (
            <Input
              {...control}
              inputMode="numeric"
              defaultValue={agent?.autonomous_minutes ?? 60}
            />
          )}
        </Field>
        <Field
          name="autonomous_prompt"
          label="Instruction for each run"
          error={errors.autonomous_prompt}
        >
          {(control) => <Textarea {...control} defaultValue={agent?.autonomous_prompt ?? ""} />}
        </Field>
      </Panel>
      <Panel as="fieldset">
        <legend>Who may chat</legend>
        <div className="form-grid">
          <Field name="chat_access" label="Chat access" error={errors.chat_access}>
            {(control) => (
              <Select {...control} defaultValue={agent?.chat_access ?? "public"}>
                <option value="public">Anyone (public)</option>
                <option value="key">Callers with a key only</option>
              </Select>
            )}
          </Field>
          {text(
            "rate_limit_rpm",
            "Chats a minute per caller",
            agent ? agent.rate_limit_rpm : undefined,
            agent
              ? "Empty = no limit."
              : `Empty = the default (${formNumber(defaults?.rate_limit_rpm)}).`,
          )}
        </div>
      </Panel>
      <Panel as="fieldset">
        <legend>Tools</legend>
        <Field
          name="max_tool_steps"
          label="Model turns that may call tools"
          hint="0 to 20 per chat or run; 0 = never. MCP servers are set with mcp_servers in POST /agents."
          error={errors.max_tool_steps}
        >
          {(control) => (
            <Input {...control} inputMode="numeric" defaultValue={agent?.max_tool_steps ?? 5} />
          )}
        </Field>
      </Panel>
      <Panel as="fieldset">
        <legend>Quota limits</legend>
        <p className="hint">
          {agent
            ? "An empty limit means no limit. Counts are kept when a limit changes."
            : "An empty limit takes the service's default for new agents, shown in each field."}
        </p>
        <div className="form-grid">
          {QUOTA_LIMIT_FIELDS.map((name) => (
            <Field
              key={name}
              name={`quota.${name}`}
              label={LIMIT_LABELS[name]}
              error={errors[`quota.${name}`]}
            >
              {(control) => (
                <Input
                  {...control}
                  inputMode="numeric"
                  defaultValue={agent ? (agent.quota[name] ?? "") : ""}
                  placeholder={agent ? "no limit" : `default: ${formNumber(defaults?.quota[name])}`}
                />
              )}
            </Field>
          ))}
        </div>
      </Panel>
      <div className="row">
        <Button type="submit" variant="primary" disabled={pending}>
          {pending ? "Saving…" : agent ? "Save changes" : "Create agent"}
        </Button>
        <OutcomeMessage outcome={shown} />
      </div>
    </Panel>
  );
}

/** What the cron field says as it is typed: the schedule in words, or what it takes. */
function cronHint(cron: string, zone: string): string {
  const expression = cron.trim();
  if (expression === "")
    return "Empty = every so many minutes (below). Five fields: minute hour day month weekday, e.g. 0 9 * * 1-5.";
  if (cronProblem(expression))
    return "Five fields: minute hour day month weekday, e.g. 0 9 * * 1-5.";
  return describeCron(expression, zone.trim() || "UTC");
}
