"use client";

import { TypedFilter } from "../requests/requests-filters";
import { instantOf, localInput } from "../requests/times";
import { Field } from "../ui/field";
import { Input } from "../ui/input";
import { Select } from "../ui/select";

type Changes = Record<string, string | undefined>;
type OnChange = (changes: Changes, how?: "push" | "replace") => void;

/** The actions the service records, as the filter offers them. */
export const ACTIONS = [
  "agent.created",
  "agent.updated",
  "agent.deleted",
  "agent.counters_reset",
  "agent_key.created",
  "agent_key.revoked",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.secret_rotated",
  "price.set",
  "price.deleted",
] as const;

export type AuditFilterValues = {
  actor: string;
  target: string;
  action: string | undefined;
  since: string | undefined;
  until: string | undefined;
};

/**
 * The audit log's filters, kept in the URL: actor and target follow typing (a quarter of a
 * second after the last key, replacing the URL); action and times apply at once.
 */
export function AuditFilters({
  values,
  onChange,
}: {
  values: AuditFilterValues;
  onChange: OnChange;
}) {
  return (
    <div className="filters">
      <TypedFilter
        name="audit-actor"
        label="Actor"
        param="actor"
        value={values.actor}
        placeholder="admin-key"
        onChange={onChange}
      />
      <TypedFilter
        name="audit-target"
        label="Target"
        param="target"
        value={values.target}
        placeholder="agent:support-bot"
        onChange={onChange}
      />
      <Field name="audit-action" label="Action">
        {(control) => (
          <Select
            {...control}
            value={values.action ?? ""}
            onChange={(event) => onChange({ action: event.target.value || undefined })}
          >
            <option value="">Any action</option>
            {ACTIONS.map((action) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field name="audit-since" label="Since">
        {(control) => (
          <Input
            {...control}
            type="datetime-local"
            value={localInput(values.since)}
            onChange={(event) => onChange({ since: instantOf(event.target.value) })}
          />
        )}
      </Field>
      <Field name="audit-until" label="Before">
        {(control) => (
          <Input
            {...control}
            type="datetime-local"
            value={localInput(values.until)}
            onChange={(event) => onChange({ until: instantOf(event.target.value) })}
          />
        )}
      </Field>
    </div>
  );
}
