"use client";

import { type FormEvent, useState } from "react";
import { trpc } from "./trpc";
import { ConfirmDialog } from "./ui/confirm-dialog";
import { Copyable } from "./ui/copy-button";
import { problemOf } from "./ui/problem";
import { QueryState } from "./ui/query-state";
import { MaybeTime, RelativeTime } from "./ui/relative-time";

/** An agent's caller keys: make one (shown once), see when each was last used, revoke. */
export function KeysPanel({ aid }: { aid: string }) {
  const utils = trpc.useUtils();
  const keys = trpc.keys.list.useQuery({ aid });
  const [name, setName] = useState("");
  const [made, setMade] = useState<{ name: string; key: string }>();
  const [error, setError] = useState<string>();
  const create = trpc.keys.create.useMutation({
    onSuccess: (key) => {
      setMade({ name: key.name, key: key.key });
      setName("");
      return utils.keys.list.invalidate({ aid });
    },
    onError: (caught) => setError(problemOf(caught).detail),
  });
  const revoke = trpc.keys.revoke.useMutation({
    onSuccess: () => utils.keys.list.invalidate({ aid }),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setMade(undefined);
    create.mutate({ aid, name });
  }

  return (
    <section className="panel" aria-labelledby="keys-heading">
      <h2 id="keys-heading">Caller keys</h2>
      <p className="muted small-text">
        A caller sends its key as <code>Authorization: Bearer &lt;key&gt;</code>; with chat access
        set to key only, callers without one are refused.
      </p>
      <form className="row" onSubmit={submit}>
        <label htmlFor="key-name" className="sr-only">
          Key name
        </label>
        <input
          id="key-name"
          className="grow"
          value={name}
          onChange={(event) => setName(event.target.value)}
          placeholder="who uses it, e.g. mobile app"
          maxLength={100}
        />
        <button type="submit" disabled={!name.trim() || create.isPending}>
          Make key
        </button>
      </form>
      {made && (
        <div className="notice info" role="status" data-testid="new-key">
          <p>
            Key <strong>{made.name}</strong>: copy it now, it is not shown again.
          </p>
          <Copyable value={made.key} what="key" />
        </div>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <QueryState
        query={keys}
        what="the keys"
        isEmpty={(data) => data.keys.length === 0}
        empty="No keys. Callers without a key are known by their address."
      >
        {(data) => (
          <table className="cards">
            <thead>
              <tr>
                <th>Name</th>
                <th>Id</th>
                <th>Made</th>
                <th>Last used</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.keys.map((key) => (
                <tr key={key.id} data-testid="key-row">
                  <td data-label="Name">{key.name}</td>
                  <td data-label="Id">
                    <Copyable value={key.id} what="key id" />
                  </td>
                  <td data-label="Made">
                    <RelativeTime value={key.created_at} />
                  </td>
                  <td data-label="Last used">
                    <MaybeTime value={key.last_used_at} />
                  </td>
                  <td data-label="">
                    <ConfirmDialog
                      trigger="Revoke"
                      title={`Revoke key '${key.name}'?`}
                      confirmLabel="Revoke key"
                      onConfirm={() => revoke.mutateAsync({ aid, id: key.id })}
                    >
                      <p>Its callers are refused at once. Their conversations stay.</p>
                    </ConfirmDialog>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryState>
    </section>
  );
}
