"use client";

import { type FormEvent, useState } from "react";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { ConfirmDialog } from "./ui/confirm-dialog";
import { Copyable } from "./ui/copy-button";
import { Input } from "./ui/input";
import { ErrorText, Notice } from "./ui/notice";
import { Panel } from "./ui/panel";
import { fieldErrorsOf, problemOf } from "./ui/problem";
import { QueryState } from "./ui/query-state";
import { MaybeTime, RelativeTime } from "./ui/relative-time";
import { StatusBadge } from "./ui/status-badge";
import { Table, Td, Th } from "./ui/table";
import { useFocusFirstInvalid } from "./ui/use-focus-first-invalid";
import { useRole } from "./use-role";

/** The input of each field the service may refuse. */
const INPUT_OF: Record<string, string> = {
  name: "key-name",
  expires_at: "key-until",
  rate_limit_rpm: "key-rpm",
};

/**
 * An agent's agent keys: make one (shown once), see when each was last used, revoke; a viewer
 * sees the list only.
 */
export function KeysPanel({ aid }: { aid: string }) {
  const utils = trpc.useUtils();
  const { canOperate } = useRole();
  const keys = trpc.agentKeys.list.useQuery({ aid });
  const [name, setName] = useState("");
  const [until, setUntil] = useState("");
  const [rpm, setRpm] = useState("");
  const [made, setMade] = useState<{ name: string; key: string }>();
  const [error, setError] = useState<string>();
  /** The fields the service refused, by the input's id. */
  const [invalid, setInvalid] = useState<Set<string>>(new Set());
  const { form, focusFirstInvalid } = useFocusFirstInvalid();
  const create = trpc.agentKeys.create.useMutation({
    onSuccess: (key) => {
      setMade({ name: key.name, key: key.key });
      setName("");
      setUntil("");
      setRpm("");
      return utils.agentKeys.list.invalidate({ aid });
    },
    onError: (caught) => {
      const problem = problemOf(caught);
      const fields = fieldErrorsOf(problem);
      setError(problem.detail);
      setInvalid(
        new Set(Object.keys(fields).flatMap((field) => (INPUT_OF[field] ? [INPUT_OF[field]] : []))),
      );
      focusFirstInvalid();
    },
  });
  const marked = (id: string) =>
    invalid.has(id) ? { "aria-invalid": true as const, "aria-describedby": "key-error" } : {};
  const revoke = trpc.agentKeys.revoke.useMutation({
    onSuccess: () => utils.agentKeys.list.invalidate({ aid }),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setInvalid(new Set());
    setMade(undefined);
    const limit = rpm.trim() === "" ? null : Number(rpm);
    create.mutate({
      aid,
      name,
      // The chosen day, to its last second in UTC: "works until" that date.
      ...(until ? { expires_at: `${until}T23:59:59Z` } : {}),
      ...(limit === null ? {} : { rate_limit_rpm: limit }),
    });
  }

  return (
    <Panel title="Agent keys">
      <p className="muted small-text">
        A caller sends its key as <code>Authorization: Bearer &lt;key&gt;</code>; with chat access
        set to key only, callers without one are refused. A key may end on a day (UTC) and have its
        own chats a minute instead of the agent's.
      </p>
      {canOperate && (
        <form className="row" onSubmit={submit} ref={form}>
          <label htmlFor="key-name" className="sr-only">
            Key name
          </label>
          <Input
            id="key-name"
            {...marked("key-name")}
            className="grow"
            value={name}
            onChange={(event) => setName(event.target.value)}
            placeholder="who uses it, e.g. mobile app"
            maxLength={100}
          />
          <label htmlFor="key-until" className="sr-only">
            Works until (UTC, optional)
          </label>
          <Input
            id="key-until"
            {...marked("key-until")}
            type="date"
            width="narrow"
            title="Works until this day (UTC); empty = no end"
            value={until}
            onChange={(event) => setUntil(event.target.value)}
          />
          <label htmlFor="key-rpm" className="sr-only">
            Chats a minute (optional)
          </label>
          <Input
            id="key-rpm"
            {...marked("key-rpm")}
            width="narrow"
            inputMode="numeric"
            placeholder="chats/min"
            title="Chats a minute of this key; empty = the agent's limit"
            value={rpm}
            onChange={(event) => setRpm(event.target.value)}
          />
          <Button type="submit" disabled={!name.trim() || create.isPending}>
            Make key
          </Button>
        </form>
      )}
      {made && (
        <Notice variant="info" testId="new-key">
          <p>
            Key <strong>{made.name}</strong>: copy it now, it is not shown again.
          </p>
          <Copyable value={made.key} what="key" />
        </Notice>
      )}
      {error && (
        <ErrorText role="alert" id="key-error">
          {error}
        </ErrorText>
      )}
      <QueryState
        query={keys}
        what="the keys"
        isEmpty={(data) => data.keys.length === 0}
        empty="No keys. Callers without a key are known by their address."
      >
        {(data) => (
          <Table layout="cards">
            <thead>
              <tr>
                <Th>Name</Th>
                <Th>Id</Th>
                <Th>Made</Th>
                <Th>Last used</Th>
                <Th>Limits</Th>
                {canOperate && (
                  <Th>
                    <span className="sr-only">Actions</span>
                  </Th>
                )}
              </tr>
            </thead>
            <tbody>
              {data.keys.map((key) => (
                <tr key={key.id} data-testid="key-row">
                  <Td label="Name">{key.name}</Td>
                  <Td label="Id">
                    <Copyable value={key.id} what="key id" />
                  </Td>
                  <Td label="Made">
                    <RelativeTime value={key.created_at} />
                  </Td>
                  <Td label="Last used">
                    <MaybeTime value={key.last_used_at} />
                  </Td>
                  <Td label="Limits">
                    {key.expired ? (
                      <StatusBadge status="expired" tone="danger" />
                    ) : key.expires_at ? (
                      <>
                        until <RelativeTime value={key.expires_at} />
                      </>
                    ) : (
                      "no end"
                    )}
                    <div className="muted small-text">
                      {key.rate_limit_rpm === null
                        ? "the agent's chats a minute"
                        : `${key.rate_limit_rpm} chats a minute`}
                    </div>
                  </Td>
                  {canOperate && (
                    <Td label="">
                      <ConfirmDialog
                        trigger="Revoke"
                        title={`Revoke key '${key.name}'?`}
                        confirmLabel="Revoke key"
                        onConfirm={() => revoke.mutateAsync({ aid, id: key.id })}
                      >
                        <p>Its callers are refused at once. Their conversations stay.</p>
                      </ConfirmDialog>
                    </Td>
                  )}
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </QueryState>
    </Panel>
  );
}
