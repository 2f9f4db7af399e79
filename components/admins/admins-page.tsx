"use client";

import { useEffect, useRef, useState } from "react";
import { trpc } from "../trpc";
import { Button } from "../ui/button";
import { Copyable } from "../ui/copy-button";
import { aRole } from "../ui/format";
import { Notice } from "../ui/notice";
import { PageHeader } from "../ui/page-header";
import { Panel } from "../ui/panel";
import { QueryState } from "../ui/query-state";
import { ReadOnlyNotice } from "../ui/read-only-notice";
import { useRole } from "../use-role";
import { AdminForm } from "./admin-form";
import { type Admin, AdminsTable } from "./admins-table";
import { KeyForm } from "./key-form";

/** What the page last did, said at its top: a person added, or a key made (shown this once). */
type Done = { added: string } | { person: string; keyName: string; key: string };

/**
 * The people who administer the service: their wallets, emails, roles and keys. An owner adds
 * and removes people, changes roles, makes keys (each shown once) and revokes them; anyone else
 * sees the list only, and is told why.
 */
export function AdminsPage() {
  const utils = trpc.useUtils();
  const admins = trpc.admins.list.useQuery();
  const create = trpc.admins.create.useMutation();
  const createKey = trpc.admins.createKey.useMutation();
  // No write control until the session says an owner is here: a viewer never sees one flash.
  const { role, isOwner: canChange } = useRole();
  const [adding, setAdding] = useState(false);
  const [keyFor, setKeyFor] = useState<Admin>();
  const [done, setDone] = useState<Done>();
  // Once done, the form and its button are gone: the focus goes to what was done.
  const doneNotice = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (done) doneNotice.current?.focus();
  }, [done]);

  const open = (form: "person" | Admin) => {
    setDone(undefined);
    setAdding(form === "person");
    setKeyFor(form === "person" ? undefined : form);
  };

  return (
    <>
      <PageHeader
        title="Admins"
        actions={
          canChange &&
          !adding && (
            <Button variant="primary" onClick={() => open("person")}>
              Add person
            </Button>
          )
        }
      />
      <p className="muted">
        The people who run the service. Viewers read everything but secrets; operators also change
        agents, keys, quotas, prices, webhooks and deployments; owners also change the admins.
      </p>
      {role && !canChange && <ReadOnlyNotice role={role} what="admins" changers="owners" />}
      {canChange && adding && (
        <AdminForm
          onCancel={() => setAdding(false)}
          onSubmit={async (fields) => {
            const added = await create.mutateAsync(fields);
            setAdding(false);
            setDone({ added: `${added.name} added as ${aRole(added.role)}.` });
            await utils.admins.list.invalidate();
          }}
        />
      )}
      {canChange && keyFor && (
        <KeyForm
          key={keyFor.id}
          person={keyFor}
          onCancel={() => setKeyFor(undefined)}
          onSubmit={async (fields) => {
            const made = await createKey.mutateAsync({ id: keyFor.id, ...fields });
            setKeyFor(undefined);
            setDone({ person: keyFor.name, keyName: made.name, key: made.key });
            await utils.admins.list.invalidate();
          }}
        />
      )}
      {done && (
        <Notice variant="info" testId="admins-done" ref={doneNotice} tabIndex={-1}>
          {"added" in done ? (
            <p>{done.added}</p>
          ) : (
            <>
              <p>
                Key <strong>{done.keyName}</strong> made for {done.person}: copy it now, it will not
                be shown again. It signs in on the sign-in page, or goes in{" "}
                <code>Authorization: Bearer &lt;key&gt;</code>.
              </p>
              <Copyable value={done.key} what="key" />
            </>
          )}
        </Notice>
      )}
      <Panel title="People">
        <QueryState
          query={admins}
          what="the admins"
          isEmpty={(data) => data.admins.length === 0}
          empty="No admins yet: only ADMIN_API_KEY and the wallets in ADMIN_ADDRESSES sign in as owners."
        >
          {(data) => <AdminsTable admins={data.admins} canChange={canChange} onMakeKey={open} />}
        </QueryState>
      </Panel>
    </>
  );
}
