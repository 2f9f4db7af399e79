"use client";

import { useState } from "react";
import type { McpServer } from "@/server/tools/schema";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { Field } from "./ui/field";
import { Input } from "./ui/input";
import { OutcomeMessage } from "./ui/notice";
import { Panel } from "./ui/panel";
import { Select } from "./ui/select";
import { Textarea } from "./ui/textarea";
import { useFormSubmit } from "./ui/use-form-submit";

/** How a header's value is given: typed (stored encrypted), read from a variable, or kept. */
type HeaderMode = "value" | "env" | "keep";
type HeaderRow = {
  /** Stable across edits, for React (rows are added and removed). */
  key: number;
  name: string;
  mode: HeaderMode;
  value: string;
  /** A secret stored for this header, which "keep" sends back unchanged; its hint, if any. */
  stored: boolean;
  hint: string | null;
};

let rowKeys = 0;

/** A server as POST /agents takes it: the shown form is also a valid input (secrets kept). */
type ServerInput = {
  name: string;
  url: string;
  headers: Record<string, string | { env: string } | { secret: true }>;
  allowed_tools: string[] | null;
  approval_required_tools: string[];
};

/** A shown server sent back unchanged: its stored secrets kept, its variables named again. */
export function asInput(server: McpServer): ServerInput {
  const headers: ServerInput["headers"] = {};
  for (const [name, value] of Object.entries(server.headers))
    headers[name] = "env" in value ? { env: value.env } : { secret: true };
  return {
    name: server.name,
    url: server.url,
    headers,
    allowed_tools: server.allowed_tools,
    approval_required_tools: server.approval_required_tools,
  };
}

/** Tool names typed one a line (or separated by spaces or commas). */
const toolNames = (text: FormDataEntryValue | null) =>
  String(text ?? "")
    .split(/[\s,]+/)
    .filter(Boolean);

/** The form's field a refused path is shown beside: a list's entries (`allowed_tools.3`) by the list. */
const LIST_ENTRY = /^(allowed_tools|approval_required_tools)\.\d+$/;

function rowsOf(server: McpServer | undefined): HeaderRow[] {
  return Object.entries(server?.headers ?? {}).map(([name, value]) =>
    "env" in value
      ? { key: ++rowKeys, name, mode: "env", value: value.env, stored: false, hint: null }
      : { key: ++rowKeys, name, mode: "keep", value: "", stored: true, hint: value.hint },
  );
}

/**
 * Adds or edits one MCP server of an agent, with the same validation and secret handling as
 * POST /agents (it saves through agents.upsert): a header's value is stored encrypted and never
 * shown again; an existing one is kept unless a new value is typed; `env` names a variable of
 * the server's environment. The other servers are sent back as they are.
 */
export function McpServerForm({
  aid,
  servers,
  index,
  onDone,
}: {
  aid: string;
  servers: McpServer[];
  /** The server edited; undefined adds one. */
  index: number | undefined;
  onDone: (saved: string | undefined) => void;
}) {
  const editing = index === undefined ? undefined : servers[index];
  const utils = trpc.useUtils();
  const save = trpc.agents.upsert.useMutation();
  const [headers, setHeaders] = useState<HeaderRow[]>(() => rowsOf(editing));
  const at = index ?? servers.length;
  const { form, submit, errors, failure } = useFormSubmit({
    read: (data): ServerInput => {
      const tools = toolNames(data.get("allowed_tools"));
      return {
        name: String(data.get("server_name") ?? "").trim(),
        url: String(data.get("server_url") ?? "").trim(),
        headers: Object.fromEntries(
          headers
            .filter((row) => row.name.trim() !== "")
            .map((row) => [
              row.name.trim(),
              row.mode === "keep"
                ? { secret: true as const }
                : row.mode === "env"
                  ? { env: row.value.trim() }
                  : row.value,
            ]),
        ),
        allowed_tools: tools.length > 0 ? tools : null,
        approval_required_tools: toolNames(data.get("approval_required_tools")),
      };
    },
    send: async (server) => {
      const list = servers.map(asInput);
      list.splice(at, index === undefined ? 0 : 1, server);
      await save.mutateAsync({ aid, mcp_servers: list });
      await utils.agents.get.invalidate({ aid });
      await utils.tools.list.invalidate({ aid });
      onDone(server.name);
    },
    refused: "Not saved",
    // Its errors by its own fields (a list's entries by the list); the whole list's, by its name.
    fieldErrors: (problem) => {
      const own: Record<string, string> = {};
      const prefix = `mcp_servers.${at}.`;
      for (const { field, detail } of problem.errors ?? []) {
        if (field.startsWith(prefix)) {
          const name = field.slice(prefix.length).replace(LIST_ENTRY, "$1");
          own[name] ??= detail;
        } else if (field === "mcp_servers") own.name = detail;
      }
      return own;
    },
  });

  const setRow = (i: number, change: Partial<HeaderRow>) =>
    setHeaders((rows) => rows.map((row, j) => (j === i ? { ...row, ...change } : row)));
  const headerError = (name: string) => errors[`headers.${name}`] ?? errors.headers;

  return (
    <Panel
      as="form"
      ref={form}
      onSubmit={submit}
      noValidate
      aria-label={editing ? `Edit MCP server ${editing.name}` : "Add an MCP server"}
    >
      <div className="form-grid">
        <Field
          name="server_name"
          label="Server name"
          hint="1 to 32 letters, digits, _ or -: tools are offered as name__tool."
          error={errors.name}
        >
          {(control) => <Input {...control} defaultValue={editing?.name ?? ""} />}
        </Field>
        <Field
          name="server_url"
          label="Server URL"
          hint="Its Streamable HTTP address, on a public host, or a private one the service's MCP_ALLOWED_HOSTS setting lists; no credentials in it."
          error={errors.url}
        >
          {(control) => (
            <Input {...control} inputMode="url" defaultValue={editing?.url ?? "https://"} />
          )}
        </Field>
      </div>
      <Panel as="fieldset">
        <legend>Headers sent to the server</legend>
        {headers.length === 0 && <p className="muted">None.</p>}
        {headers.map((row, i) => (
          <div className="form-grid" key={row.key}>
            <Field name={`header_name_${i}`} label="Header" error={headerError(row.name)}>
              {(control) => (
                <Input
                  {...control}
                  value={row.name}
                  onChange={(event) => setRow(i, { name: event.currentTarget.value })}
                />
              )}
            </Field>
            <Field name={`header_mode_${i}`} label="Its value">
              {(control) => (
                <Select
                  {...control}
                  value={row.mode}
                  onChange={(event) =>
                    setRow(i, { mode: event.currentTarget.value as HeaderMode, value: "" })
                  }
                >
                  {row.stored ? (
                    <option value="keep">
                      Keep the stored secret{row.hint ? ` (${row.hint})` : ""}
                    </option>
                  ) : null}
                  <option value="value">A secret value (stored encrypted)</option>
                  <option value="env">An environment variable (MCP_…)</option>
                </Select>
              )}
            </Field>
            {row.mode !== "keep" && (
              <Field
                name={`header_value_${i}`}
                label={row.mode === "env" ? "Variable name" : "Secret value"}
              >
                {(control) => (
                  <Input
                    {...control}
                    type={row.mode === "value" ? "password" : "text"}
                    autoComplete="off"
                    value={row.value}
                    onChange={(event) => setRow(i, { value: event.currentTarget.value })}
                  />
                )}
              </Field>
            )}
            <div className="row">
              <Button
                size="small"
                onClick={() => setHeaders((rows) => rows.filter((_, j) => j !== i))}
              >
                Remove header {row.name}
              </Button>
            </div>
          </div>
        ))}
        <Button
          size="small"
          onClick={() =>
            setHeaders((rows) => [
              ...rows,
              { key: ++rowKeys, name: "", mode: "value", value: "", stored: false, hint: null },
            ])
          }
        >
          Add a header
        </Button>
      </Panel>
      <Field
        name="allowed_tools"
        label="Tools the agent may call"
        hint="Their names, one a line; empty = every tool the server lists."
        error={errors.allowed_tools}
      >
        {(control) => (
          <Textarea {...control} defaultValue={(editing?.allowed_tools ?? []).join("\n")} />
        )}
      </Field>
      <Field
        name="approval_required_tools"
        label="Tools that need approval"
        hint="Their names, one a line, or * for every tool of the server; empty = none. Their calls wait for a person to approve or deny them under Approvals."
        error={errors.approval_required_tools}
      >
        {(control) => (
          <Textarea
            {...control}
            defaultValue={(editing?.approval_required_tools ?? []).join("\n")}
          />
        )}
      </Field>
      <div className="row">
        <Button type="submit" variant="primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : editing ? "Save server" : "Add server"}
        </Button>
        <Button onClick={() => onDone(undefined)}>Cancel</Button>
      </div>
      <OutcomeMessage outcome={failure ? { ok: false, text: failure } : undefined} />
    </Panel>
  );
}
