"use client";

import { useEffect, useRef, useState } from "react";
import type { McpServer } from "@/server/tools/schema";
import { asInput, McpServerForm } from "./mcp-server-form";
import styles from "./tools-panel.module.css";
import { trpc } from "./trpc";
import { Button } from "./ui/button";
import { ConfirmDialog } from "./ui/confirm-dialog";
import { ErrorText, Notice, type Outcome, OutcomeMessage } from "./ui/notice";
import { Panel } from "./ui/panel";
import { problemOf } from "./ui/problem";
import { StatusBadge } from "./ui/status-badge";
import { Table, Td, Th } from "./ui/table";
import { useRole } from "./use-role";

/**
 * An agent's MCP servers: added, edited and removed here (through agents.upsert, so with the
 * API's validation and secret handling), and the tools each describes, asked of the servers
 * when the panel opens and again on "List tools now", with which of them the agent may call.
 * On the built-in echo provider, which never asks for a tool, it says so where servers are
 * added (they are still saved: the agent calls them once a real model is configured). A viewer
 * sees the servers and their tools only.
 */
export function ToolsPanel({
  aid,
  servers,
  maxSteps,
  provider,
}: {
  aid: string;
  servers: McpServer[];
  maxSteps: number;
  /** The service's model provider (`echo` or `openai-compatible`). */
  provider: string;
}) {
  const utils = trpc.useUtils();
  const tools = trpc.tools.list.useQuery(
    { aid },
    { enabled: servers.length > 0, staleTime: 60_000, retry: false },
  );
  const save = trpc.agents.upsert.useMutation();
  const { canOperate } = useRole();
  /** The server being edited: its index, "new", or none. */
  const [editing, setEditing] = useState<number | "new">();
  const [outcome, setOutcome] = useState<Outcome>();
  // When the form closes, the focus goes back to what opened it (or to "Add MCP server"), not to
  // the page's body where the form's own buttons were.
  const panel = useRef<HTMLElement>(null);
  const opener = useRef<string>(undefined);
  useEffect(() => {
    if (editing !== undefined || opener.current === undefined) return;
    const buttons = [...(panel.current?.querySelectorAll("button") ?? [])];
    (
      buttons.find((button) => button.textContent === opener.current) ??
      buttons.find((button) => button.textContent === "Add MCP server")
    )?.focus();
    opener.current = undefined;
  }, [editing]);
  const open = (which: number | "new", label: string) => {
    setOutcome(undefined);
    opener.current = label;
    setEditing(which);
  };

  async function remove(index: number) {
    const name = servers[index]?.name;
    await save.mutateAsync({
      aid,
      mcp_servers: servers.filter((_, i) => i !== index).map(asInput),
    });
    await utils.agents.get.invalidate({ aid });
    await utils.tools.list.invalidate({ aid });
    setOutcome({ ok: true, text: `Removed ${name}.` });
  }

  return (
    <Panel
      ref={panel}
      title="Tools"
      actions={
        <div className="row">
          {servers.length > 0 && (
            <Button size="small" disabled={tools.isFetching} onClick={() => tools.refetch()}>
              {tools.isFetching ? "Asking the servers…" : "List tools now"}
            </Button>
          )}
          {canOperate && editing === undefined && servers.length < 10 && (
            <Button size="small" onClick={() => open("new", "Add MCP server")}>
              Add MCP server
            </Button>
          )}
        </div>
      }
    >
      {provider === "echo" && (
        <Notice testId="echo-no-tools">
          This service answers with its built-in echo provider, which repeats each message and never
          calls tools: MCP servers added here are kept, and their tools are called once the service
          runs a real model (set LLM_BASE_URL, and LLM_API_KEY if it needs one, then restart it).
        </Notice>
      )}
      {servers.length === 0 ? (
        <p className="muted">
          {canOperate ? "No MCP servers: add one to give the agent tools." : "No MCP servers."}
        </p>
      ) : (
        <p className="muted">
          {maxSteps === 0
            ? "“Model turns that may call tools” is 0 in the configuration below: the model is offered no tools."
            : `Up to ${maxSteps} model turns of a chat or run may call tools.`}
        </p>
      )}
      {editing !== undefined && (
        <McpServerForm
          aid={aid}
          servers={servers}
          index={editing === "new" ? undefined : editing}
          onDone={(saved) => {
            setEditing(undefined);
            if (saved) setOutcome({ ok: true, text: `Saved ${saved}.` });
          }}
        />
      )}
      <OutcomeMessage outcome={outcome} />
      {tools.isFetching && !tools.data && <p aria-busy="true">Asking the servers…</p>}
      {tools.error && <ErrorText>{problemOf(tools.error).detail}</ErrorText>}
      {servers.map((configured, index) => {
        const server = tools.data?.servers.find((listed) => listed.name === configured.name);
        const gated = configured.approval_required_tools;
        const needsApproval = (tool: string) => gated.includes("*") || gated.includes(tool);
        return (
          <div key={configured.name} className={styles.server} data-testid="tool-server">
            <div className="row">
              <strong>{configured.name}</strong>
              <code className="muted">{configured.url}</code>
              {server && (
                <StatusBadge
                  status={server.status}
                  tone={server.status === "ok" ? "ok" : "danger"}
                />
              )}
              {canOperate && (
                <Button
                  size="small"
                  disabled={editing !== undefined}
                  onClick={() => open(index, `Edit ${configured.name}`)}
                >
                  Edit {configured.name}
                </Button>
              )}
              {canOperate && (
                <ConfirmDialog
                  trigger={`Remove ${configured.name}`}
                  title={`Remove the MCP server ${configured.name}?`}
                  confirmLabel="Remove server"
                  disabled={editing !== undefined}
                  onConfirm={() => remove(index)}
                >
                  <p>
                    The agent can no longer call its tools; its stored header secrets are deleted.
                    Past tool calls stay in the threads and runs.
                  </p>
                </ConfirmDialog>
              )}
            </div>
            {gated.length > 0 && (
              <p className="muted small-text" data-testid="approval-tools">
                {gated.includes("*")
                  ? "Every call of its tools waits for approval (under Approvals)."
                  : `Calls of ${gated.join(", ")} wait for approval (under Approvals).`}
              </p>
            )}
            {server?.error && <ErrorText>{server.error}</ErrorText>}
            {server && server.tools.length > 0 && (
              <Table layout="cards">
                <thead>
                  <tr>
                    <Th>Tool</Th>
                    <Th>Description</Th>
                    <Th>Allowed</Th>
                    {gated.length > 0 && <Th>Needs approval</Th>}
                  </tr>
                </thead>
                <tbody>
                  {server.tools.map((tool) => (
                    <tr key={tool.name}>
                      <Td label="Tool">
                        <code>{tool.name}</code>
                      </Td>
                      <Td label="Description">{tool.description ?? ""}</Td>
                      <Td label="Allowed">{tool.allowed ? "yes" : "no"}</Td>
                      {gated.length > 0 && (
                        <Td label="Needs approval">{needsApproval(tool.name) ? "yes" : "no"}</Td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </Table>
            )}
          </div>
        );
      })}
    </Panel>
  );
}
