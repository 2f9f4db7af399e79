"use client";

import { useId, useState } from "react";
import { trpc } from "../trpc";
import { ConfirmDialog } from "../ui/confirm-dialog";
import { Select } from "../ui/select";
import { ADMIN_ROLES, type AdminRole, isRole, ROLE_WORDS } from "./roles";

type Person = { id: string; name: string; role: AdminRole };

/**
 * A person's role, changed after asking: the choice is made in the dialog (a select that acted
 * as it changed would act on every arrow key pressed to go through it).
 */
export function ChangeRole({ person }: { person: Person }) {
  const utils = trpc.useUtils();
  const update = trpc.admins.update.useMutation({ onSuccess: () => utils.admins.invalidate() });
  const [role, setRole] = useState<AdminRole>(person.role);
  const id = useId();
  return (
    <ConfirmDialog
      trigger="Change role"
      title={`Change ${person.name}'s role?`}
      confirmLabel="Change role"
      danger={false}
      onOpen={() => setRole(person.role)}
      confirmDisabled={role === person.role}
      onConfirm={() => update.mutateAsync({ id: person.id, role })}
    >
      <label htmlFor={id}>New role</label>
      <Select
        id={id}
        value={role}
        onChange={(event) => {
          const chosen = event.currentTarget.value;
          if (isRole(chosen)) setRole(chosen);
        }}
      >
        {ADMIN_ROLES.map((option) => (
          <option key={option} value={option}>
            {ROLE_WORDS[option]}
          </option>
        ))}
      </Select>
      <p>A lower role lowers their keys and the sessions they have open, at once.</p>
    </ConfirmDialog>
  );
}

/** Removes a person after asking: their keys and the sessions opened with them stop at once. */
export function RemoveAdmin({ person }: { person: Person }) {
  const utils = trpc.useUtils();
  const remove = trpc.admins.delete.useMutation({ onSuccess: () => utils.admins.invalidate() });
  return (
    <ConfirmDialog
      trigger="Remove"
      title={`Remove ${person.name}?`}
      confirmLabel="Remove person"
      onConfirm={() => remove.mutateAsync({ id: person.id })}
    >
      <p>
        They can no longer sign in; their keys stop working and the sessions opened with them end,
        at once.
      </p>
    </ConfirmDialog>
  );
}

/** Revokes one of a person's keys after asking. */
export function RevokeKey({
  adminId,
  keyId,
  name,
}: {
  adminId: string;
  keyId: string;
  name: string;
}) {
  const utils = trpc.useUtils();
  const revoke = trpc.admins.revokeKey.useMutation({ onSuccess: () => utils.admins.invalidate() });
  return (
    <ConfirmDialog
      trigger="Revoke"
      title={`Revoke key '${name}'?`}
      confirmLabel="Revoke key"
      onConfirm={() => revoke.mutateAsync({ id: adminId, key_id: keyId })}
    >
      <p>It and the sessions opened with it stop working at once.</p>
    </ConfirmDialog>
  );
}
