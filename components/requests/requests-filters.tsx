"use client";

import { FAILED_STATUSES } from "@/server/request-log/view";
import { Field } from "../ui/field";
import { Input } from "../ui/input";
import { Select } from "../ui/select";
import { useTypedParam } from "../ui/use-typed-param";
import { instantOf, localInput } from "./times";

type Changes = Record<string, string | undefined>;
type OnChange = (changes: Changes, how?: "push" | "replace") => void;

/** The statuses a chat request ends with, as the filter offers them. */
const STATUSES: [string, string][] = [
  [FAILED_STATUSES, "Failures (all but 200)"],
  ["200", "200 replied"],
  ["401", "401 key refused"],
  ["403", "403 forbidden"],
  ["404", "404 no such agent"],
  ["429", "429 quota or rate limit"],
  ["499", "499 client left"],
  ["500", "500 internal error"],
  ["502", "502 provider failed"],
  ["503", "503 busy or unavailable"],
  ["504", "504 provider timed out"],
];

/**
 * The request log's filters, kept in the URL: agent and caller follow typing (a quarter of a
 * second after the last key, replacing the URL); status and times apply at once.
 */
export function RequestsFilters({
  aid,
  caller,
  status,
  from,
  to,
  onChange,
}: {
  aid: string;
  caller: string;
  status: string | undefined;
  from: string | undefined;
  to: string | undefined;
  onChange: OnChange;
}) {
  return (
    <div className="filters">
      <TypedFilter
        name="request-agent"
        label="Agent ID"
        param="aid"
        value={aid}
        placeholder="support-bot"
        onChange={onChange}
      />
      <TypedFilter
        name="request-caller"
        label="Caller"
        param="caller"
        value={caller}
        placeholder="key:3f9a1c0d2b4e"
        onChange={onChange}
      />
      <Field name="request-status" label="Status">
        {(control) => (
          <Select
            {...control}
            value={status ?? ""}
            onChange={(event) => onChange({ status: event.target.value || undefined })}
          >
            <option value="">All statuses</option>
            {STATUSES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field name="request-from" label="From">
        {(control) => (
          <Input
            {...control}
            type="datetime-local"
            value={localInput(from)}
            onChange={(event) => onChange({ from: instantOf(event.target.value) })}
          />
        )}
      </Field>
      <Field name="request-to" label="Before">
        {(control) => (
          <Input
            {...control}
            type="datetime-local"
            value={localInput(to)}
            onChange={(event) => onChange({ to: instantOf(event.target.value) })}
          />
        )}
      </Field>
    </div>
  );
}

/** A text filter that follows typing, and shows what Back or a link put in the URL. */
export function TypedFilter({
  name,
  label,
  param,
  value,
  placeholder,
  onChange,
}: {
  name: string;
  label: string;
  param: string;
  value: string;
  placeholder: string;
  onChange: OnChange;
}) {
  const [draft, setDraft] = useTypedParam(value, (typed) =>
    onChange({ [param]: typed }, "replace"),
  );
  return (
    <Field name={name} label={label}>
      {(control) => (
        <Input
          {...control}
          type="search"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          placeholder={placeholder}
        />
      )}
    </Field>
  );
}
