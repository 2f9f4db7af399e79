"use client";

import { useState } from "react";
import type { Agent } from "@/server/agents/schema";
import { QUOTA_LIMIT_FIELDS, type QuotaLimitField } from "@/server/quota/schema";
import { cronProblem } from "@/server/schedules/schema";
import { describeCron } from "@/server/schedules/view";
import { CheckboxField, Field } from "./ui/field";
import { formNumber, LIMIT_LABELS } from "./ui/format";
import { Input } from "./ui/input";
import { Panel } from "./ui/panel";
import { Select } from "./ui/select";
import { Textarea } from "./ui/textarea";

/** What a new agent gets for what is left empty: the service's configured defaults. */
export type NewAgentDefaults = {
  quota: Record<QuotaLimitField, number | null>;
  rate_limit_rpm: number | null;
};

/**
 * The agent form's fieldsets after its first fields: autonomous mode, who may chat, tools and
 * the quota limits, each control with its error beside it (`errors`, by field name).
 */
export function AgentFormSections({
  agent,
  defaults,
  errors,
}: {
  agent?: Agent;
  defaults?: NewAgentDefaults;
  errors: Record<string, React.ReactNode>;
}) {
  const [cron, setCron] = useState(agent?.autonomous_cron ?? "");
  const [zone, setZone] = useState(agent?.autonomous_timezone ?? "UTC");
  return (
    <>
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
          <Field
            name="rate_limit_rpm"
            label="Chats a minute per caller"
            hint={
              agent
                ? "Empty = no limit."
                : `Empty = the default (${formNumber(defaults?.rate_limit_rpm)}).`
            }
            error={errors.rate_limit_rpm}
          >
            {(control) => (
              <Input
                {...control}
                inputMode="numeric"
                defaultValue={agent ? (agent.rate_limit_rpm ?? "") : ""}
              />
            )}
          </Field>
        </div>
      </Panel>
      <Panel as="fieldset">
        <legend>Tools</legend>
        <Field
          name="max_tool_steps"
          label="Model turns that may call tools"
          hint={`0 to 20 per chat or run; 0 = never. The MCP servers whose tools it calls are added ${agent ? "in the Tools section above" : "on the agent's page, once it is created"}.`}
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
    </>
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
