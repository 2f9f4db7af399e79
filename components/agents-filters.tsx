"use client";

import { Field } from "./ui/field";
import { Input } from "./ui/input";
import { Select } from "./ui/select";
import { useTypedParam } from "./ui/use-typed-param";

type Changes = Record<string, string | undefined>;

/**
 * The agents list's search and filters. The search follows typing (a quarter of a second after
 * the last key, replacing the URL rather than adding to the history); filters apply at once.
 */
export function AgentsFilters({
  q,
  quota,
  autonomous,
  onChange,
}: {
  q: string;
  quota: string | undefined;
  autonomous: string | undefined;
  onChange: (changes: Changes, how?: "push" | "replace") => void;
}) {
  const [draft, setDraft] = useTypedParam(q, (typed) => onChange({ q: typed }, "replace"));

  return (
    <div className="filters">
      <Field name="agent-search" label="Search by ID or name">
        {(control) => (
          <Input
            {...control}
            type="search"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            placeholder="support"
          />
        )}
      </Field>
      <Field name="quota-filter" label="Quota">
        {(control) => (
          <Select
            {...control}
            value={quota ?? ""}
            onChange={(event) => onChange({ quota: event.target.value || undefined })}
          >
            <option value="">All agents</option>
            <option value="near">At 80% or more of a limit</option>
            <option value="over">At a limit</option>
          </Select>
        )}
      </Field>
      <Field name="autonomous-filter" label="Autonomous mode">
        {(control) => (
          <Select
            {...control}
            value={autonomous ?? ""}
            onChange={(event) => onChange({ autonomous: event.target.value || undefined })}
          >
            <option value="">On or off</option>
            <option value="on">On</option>
            <option value="off">Off</option>
          </Select>
        )}
      </Field>
    </div>
  );
}
