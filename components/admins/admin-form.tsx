"use client";

import { Button } from "../ui/button";
import { Field } from "../ui/field";
import { Input } from "../ui/input";
import { ErrorText } from "../ui/notice";
import { Panel } from "../ui/panel";
import { Select } from "../ui/select";
import { useFormSubmit } from "../ui/use-form-submit";
import { ADMIN_ROLES, type AdminRole, isRole, ROLE_WORDS } from "./roles";

export type AdminFields = { name: string; wallet?: string; email?: string; role: AdminRole };

/**
 * A person to add: a name, the wallet and/or email they sign in with, and a role (viewer
 * unless chosen: the least that is enough). The service checks it; its refusals are shown beside
 * the fields they name and the focus goes to the first of them.
 */
export function AdminForm({
  onSubmit,
  onCancel,
}: {
  onSubmit: (fields: AdminFields) => Promise<unknown>;
  onCancel: () => void;
}) {
  const { form, submit, errors, failure, busy } = useFormSubmit({
    read: (data): AdminFields => {
      const text = (name: string) => String(data.get(name) ?? "").trim();
      const role = text("admin_role");
      return {
        name: text("admin_name"),
        // Left empty: not given (the service wants a wallet, an email or both).
        ...(text("admin_wallet") ? { wallet: text("admin_wallet") } : {}),
        ...(text("admin_email") ? { email: text("admin_email") } : {}),
        role: isRole(role) ? role : "viewer",
      };
    },
    send: onSubmit,
    refused: "Not added",
  });

  return (
    <Panel as="form" ref={form} onSubmit={submit} noValidate aria-label="Add a person">
      <div className="form-grid">
        <Field name="admin_name" label="Name" error={errors.name}>
          {(control) => <Input {...control} maxLength={100} autoComplete="off" />}
        </Field>
        <Field
          name="admin_wallet"
          label="Wallet (optional)"
          hint="The address they sign in with (Sign-In with Ethereum)."
          error={errors.wallet}
        >
          {(control) => <Input {...control} autoComplete="off" spellCheck={false} />}
        </Field>
        <Field
          name="admin_email"
          label="Email (optional)"
          hint="The email their identity provider vouches for (SSO). A wallet, an email or both."
          error={errors.email}
        >
          {(control) => <Input {...control} type="email" autoComplete="off" />}
        </Field>
        <Field name="admin_role" label="Role" error={errors.role}>
          {(control) => (
            <Select {...control} defaultValue="viewer">
              {ADMIN_ROLES.map((role) => (
                <option key={role} value={role}>
                  {ROLE_WORDS[role]}
                </option>
              ))}
            </Select>
          )}
        </Field>
      </div>
      <div className="row">
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Adding…" : "Add person"}
        </Button>
        <Button onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
      </div>
      {failure && <ErrorText role="alert">{failure}</ErrorText>}
    </Panel>
  );
}
