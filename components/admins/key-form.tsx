"use client";

import { Button } from "../ui/button";
import { Field } from "../ui/field";
import { Input } from "../ui/input";
import { ErrorText } from "../ui/notice";
import { Panel } from "../ui/panel";
import { fieldErrorsOf } from "../ui/problem";
import { Select } from "../ui/select";
import { useFormSubmit } from "../ui/use-form-submit";
import { type AdminRole, isRole, ROLE_WORDS, rolesUpTo } from "./roles";

export type KeyFields = { name: string; role: AdminRole; expires_at?: string };

/**
 * A key for one person: where it is used, its role (theirs or lower: the service refuses more)
 * and the day it ends. Refusals are shown beside their fields, as in the form to add a person.
 */
export function KeyForm({
  person,
  onSubmit,
  onCancel,
}: {
  person: { name: string; role: AdminRole };
  onSubmit: (fields: KeyFields) => Promise<unknown>;
  onCancel: () => void;
}) {
  const { form, submit, errors, failure, busy } = useFormSubmit({
    read: (data): KeyFields => {
      const role = String(data.get("key_role") ?? "");
      const until = String(data.get("key_until") ?? "");
      return {
        name: String(data.get("key_name") ?? "").trim(),
        role: isRole(role) ? role : person.role,
        // The chosen day, to its last second in UTC: "works until" that date.
        ...(until ? { expires_at: `${until}T23:59:59Z` } : {}),
      };
    },
    send: onSubmit,
    refused: "No key made",
    // The day's field is `until`; the API names it `expires_at`.
    fieldErrors: (problem) => {
      const fields = fieldErrorsOf(problem);
      return { ...fields, until: fields.expires_at ?? "" };
    },
  });

  return (
    <Panel
      as="form"
      ref={form}
      onSubmit={submit}
      noValidate
      title={`Make a key for ${person.name}`}
    >
      <div className="form-grid">
        <Field name="key_name" label="Key name" hint="Where it is used." error={errors.name}>
          {(control) => <Input {...control} maxLength={100} autoComplete="off" />}
        </Field>
        <Field
          name="key_role"
          label="Key role"
          hint={`At most ${person.name}'s role; lowering theirs lowers the key's.`}
          error={errors.role}
        >
          {(control) => (
            <Select {...control} defaultValue={person.role}>
              {rolesUpTo(person.role).map((role) => (
                <option key={role} value={role}>
                  {ROLE_WORDS[role]}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field
          name="key_until"
          label="Works until (UTC, optional)"
          hint="At most 366 days ahead; left empty, 90 days from now."
          error={errors.until || undefined}
        >
          {(control) => <Input {...control} type="date" />}
        </Field>
      </div>
      <div className="row">
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Making…" : "Make key"}
        </Button>
        <Button onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
      </div>
      {failure && <ErrorText role="alert">{failure}</ErrorText>}
    </Panel>
  );
}
