"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import {
  type Agent,
  agentInputSchema,
  autonomousPromptProblem,
  QUOTA_LIMIT_FIELDS,
} from "@/server/agents/schema";
import { problemOf, trpc } from "./trpc";

type Errors = Record<string, string>;

const LIMIT_LABELS: Record<(typeof QUOTA_LIMIT_FIELDS)[number], string> = {
  message_limit_total: "Messages in total",
  message_limit_monthly: "Messages per month",
  message_limit_daily: "Messages per day",
  autonomous_limit_total: "Autonomous runs in total",
  autonomous_limit_monthly: "Autonomous runs per month",
};

/** Create (no agent) or edit an agent; validated with the server's own schema before sending. */
export function AgentForm({ agent }: { agent?: Agent }) {
  const router = useRouter();
  const utils = trpc.useUtils();
  const upsert = trpc.agents.upsert.useMutation();
  const [errors, setErrors] = useState<Errors>({});
  const [message, setMessage] = useState<string>();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setMessage(undefined);
    const input = readForm(new FormData(event.currentTarget), agent);
    const parsed = agentInputSchema.safeParse(input);
    const found: Errors = {};
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        found[issue.path.join(".") || "form"] ??= issue.message;
    }
    const crossField = autonomousPromptProblem({
      autonomous_enabled: Boolean(input.autonomous_enabled),
      autonomous_prompt: (input.autonomous_prompt as string | null) ?? null,
    });
    if (crossField) found.autonomous_prompt = crossField;
    setErrors(found);
    if (Object.keys(found).length > 0 || !parsed.success) return;

    try {
      const saved = await upsert.mutateAsync(parsed.data);
      await utils.agents.invalidate();
      setMessage(saved.created ? "Agent created." : "Saved.");
      if (saved.created) router.push(`/dashboard/agents/${saved.agent.aid}`);
    } catch (error) {
      const problem = problemOf(error);
      setErrors(Object.fromEntries((problem.errors ?? []).map((e) => [e.field, e.detail])));
      setMessage(problem.detail);
    }
  }

  const field = (name: string, label: string, input: React.ReactNode, hint?: string) => (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      {input}
      {hint && (
        <div className="muted" style={{ fontSize: "0.85rem" }}>
          {hint}
        </div>
      )}
      {errors[name] && (
        <div className="field-error" id={`${name}-error`} role="alert">
          {errors[name]}
        </div>
      )}
    </div>
  );
  const described = (name: string) =>
    errors[name] ? { "aria-invalid": true, "aria-describedby": `${name}-error` } : {};

  return (
    <form
      className="panel"
      onSubmit={submit}
      noValidate
      aria-label={agent ? "Edit agent" : "New agent"}
    >
      <div className="form-grid">
        {!agent &&
          field(
            "aid",
            "Agent ID",
            <input id="aid" name="aid" required {...described("aid")} />,
            "Lowercase letters, digits and hyphens; starts with a letter.",
          )}
        {field(
          "name",
          "Name",
          <input id="name" name="name" defaultValue={agent?.name} {...described("name")} />,
        )}
        {field(
          "model",
          "Model",
          <input
            id="model"
            name="model"
            defaultValue={agent?.model ?? ""}
            {...described("model")}
          />,
          "Empty = the provider's default model.",
        )}
        {field(
          "temperature",
          "Temperature",
          <input
            id="temperature"
            name="temperature"
            inputMode="decimal"
            defaultValue={agent?.temperature ?? ""}
            {...described("temperature")}
          />,
          "0 to 2; empty = the provider's default.",
        )}
      </div>
      {field(
        "prompt",
        "System prompt",
        <textarea
          id="prompt"
          name="prompt"
          defaultValue={agent?.prompt ?? ""}
          {...described("prompt")}
        />,
      )}
      <fieldset className="panel">
        <legend>Autonomous mode</legend>
        <div className="field">
          <label className="checkbox">
            <input
              type="checkbox"
              name="autonomous_enabled"
              defaultChecked={agent?.autonomous_enabled}
            />{" "}
            Run on a schedule
          </label>
        </div>
        {field(
          "autonomous_minutes",
          "Every (minutes)",
          <input
            id="autonomous_minutes"
            name="autonomous_minutes"
            inputMode="numeric"
            defaultValue={agent?.autonomous_minutes ?? 60}
            {...described("autonomous_minutes")}
          />,
        )}
        {field(
          "autonomous_prompt",
          "Instruction for each run",
          <textarea
            id="autonomous_prompt"
            name="autonomous_prompt"
            defaultValue={agent?.autonomous_prompt ?? ""}
            {...described("autonomous_prompt")}
          />,
        )}
      </fieldset>
      <fieldset className="panel">
        <legend>Quota limits (empty = unlimited)</legend>
        <div className="form-grid">
          {QUOTA_LIMIT_FIELDS.map((name) =>
            field(
              `quota.${name}`,
              LIMIT_LABELS[name],
              <input
                id={`quota.${name}`}
                name={`quota.${name}`}
                inputMode="numeric"
                defaultValue={agent ? (agent.quota[name] ?? "") : ""}
                {...described(`quota.${name}`)}
              />,
            ),
          )}
        </div>
      </fieldset>
      <div className="row">
        <button type="submit" className="primary" disabled={upsert.isPending}>
          {agent ? "Save changes" : "Create agent"}
        </button>
        {message && (
          <span role="status" className={Object.keys(errors).length > 0 ? "error" : "muted"}>
            {message}
          </span>
        )}
      </div>
    </form>
  );
}

/** The form as an upsert input: empty text = null (cleared), numbers parsed, unset limits left out. */
function readForm(data: FormData, agent: Agent | undefined): Record<string, unknown> {
  const text = (name: string) => {
    const value = String(data.get(name) ?? "").trim();
    return value === "" ? null : value;
  };
  const number = (name: string) => {
    const value = text(name);
    return value === null ? null : Number(value);
  };
  const quota: Record<string, number | null> = {};
  for (const name of QUOTA_LIMIT_FIELDS) {
    const value = number(`quota.${name}`);
    // New agents leave empty limits to the configured defaults; edits clear them (unlimited).
    if (value !== null || agent) quota[name] = value;
  }
  const name = text("name");
  return {
    aid: agent?.aid ?? text("aid") ?? "",
    ...(name !== null ? { name } : {}),
    model: text("model"),
    prompt: text("prompt"),
    temperature: number("temperature"),
    autonomous_enabled: data.get("autonomous_enabled") === "on",
    autonomous_minutes: number("autonomous_minutes") ?? 60,
    autonomous_prompt: text("autonomous_prompt"),
    quota,
  };
}
