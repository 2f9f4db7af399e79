"use client";

import type { z } from "zod";
import type { adminSchema } from "@/server/admins/schema";
import { Button } from "../ui/button";
import { RelativeTime } from "../ui/relative-time";
import { StatusBadge } from "../ui/status-badge";
import { Table, Td, Th } from "../ui/table";
import { ChangeRole, RemoveAdmin, RevokeKey } from "./admin-actions";
import styles from "./admins.module.css";

export type Admin = z.output<typeof adminSchema>;

/**
 * The admins, each with how they sign in, their role and their keys (never a key's secret).
 * `canChange` (an owner) adds the write controls; anyone else sees the list only.
 */
export function AdminsTable({
  admins,
  canChange,
  onMakeKey,
}: {
  admins: Admin[];
  canChange: boolean;
  onMakeKey: (admin: Admin) => void;
}) {
  return (
    <Table layout="cards">
      <thead>
        <tr>
          <Th>Name</Th>
          <Th>Wallet</Th>
          <Th>Email</Th>
          <Th>Role</Th>
          <Th>Keys</Th>
          {canChange && (
            <Th>
              <span className="sr-only">Actions</span>
            </Th>
          )}
        </tr>
      </thead>
      <tbody>
        {admins.map((admin) => (
          <tr key={admin.id} data-testid="admin-row">
            <Td label="Name" className={styles.wrap}>
              {admin.name}
            </Td>
            <Td label="Wallet" className={styles.wrap}>
              {admin.wallet ? <code>{admin.wallet}</code> : <span className="muted">—</span>}
            </Td>
            <Td label="Email" className={styles.wrap}>
              {admin.email ?? <span className="muted">—</span>}
            </Td>
            <Td label="Role">
              <span data-testid="admin-role">{admin.role}</span>
            </Td>
            <Td label="Keys">
              <Keys admin={admin} canChange={canChange} />
            </Td>
            {canChange && (
              <Td label="">
                <div className="row">
                  <Button onClick={() => onMakeKey(admin)}>Make key</Button>
                  <ChangeRole person={admin} />
                  <RemoveAdmin person={admin} />
                </div>
              </Td>
            )}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

function Keys({ admin, canChange }: { admin: Admin; canChange: boolean }) {
  if (admin.keys.length === 0) return <span className="muted">none</span>;
  return (
    <ul className={styles.keys}>
      {admin.keys.map((key) => (
        <li key={key.id} className={styles.key} data-testid="admin-key">
          <span className={styles.wrap}>
            <strong>{key.name}</strong> ({key.role}),{" "}
            {key.expired ? (
              <StatusBadge status="expired" tone="danger" />
            ) : (
              <RelativeTime value={key.expires_at} prefix="until" />
            )}
          </span>
          {canChange && <RevokeKey adminId={admin.id} keyId={key.id} name={key.name} />}
        </li>
      ))}
    </ul>
  );
}
