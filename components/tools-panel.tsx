"use client";

import styles from "./tools-panel.module.css";
import { trpc } from "./trpc";
import { ErrorText } from "./ui/notice";
import { Panel } from "./ui/panel";
import { problemOf } from "./ui/problem";
import { StatusBadge } from "./ui/status-badge";
import { Table, Td, Th } from "./ui/table";

/**
 * An agent's MCP servers and the tools each describes (asked of the servers when the panel
 * opens), with which of them the agent may call.
 */
export function ToolsPanel({
  aid,
  servers,
  maxSteps,
}: {
  aid: string;
  servers: number;
  maxSteps: number;
}) {
  const tools = trpc.tools.list.useQuery(
    { aid },
    { enabled: servers > 0, staleTime: 60_000, retry: false },
  );
  return (
    <Panel title="Tools">
      {servers === 0 ? (
        <p className="muted">
          No MCP servers. Give the agent some with <code>mcp_servers</code> in POST /agents.
        </p>
      ) : (
        <p className="muted">
          {maxSteps === 0
            ? "max_tool_steps is 0: the model is offered no tools."
            : `Up to ${maxSteps} model turns of a chat or run may call tools.`}
        </p>
      )}
      {tools.isFetching && !tools.data && <p aria-busy="true">Asking the servers…</p>}
      {tools.error && <ErrorText>{problemOf(tools.error).detail}</ErrorText>}
      {tools.data?.servers.map((server) => (
        <div key={server.name} className={styles.server} data-testid="tool-server">
          <div className="row">
            <strong>{server.name}</strong>
            <code className="muted">{server.url}</code>
            <StatusBadge status={server.status} tone={server.status === "ok" ? "ok" : "danger"} />
          </div>
          {server.error && <ErrorText>{server.error}</ErrorText>}
          {server.tools.length > 0 && (
            <Table layout="cards">
              <thead>
                <tr>
                  <Th>Tool</Th>
                  <Th>Description</Th>
                  <Th>Allowed</Th>
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
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </div>
      ))}
    </Panel>
  );
}
