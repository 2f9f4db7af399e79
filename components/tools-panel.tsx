"use client";

import { trpc } from "./trpc";
import { problemOf } from "./ui/problem";

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
    <section className="panel" aria-labelledby="tools-heading">
      <h2 id="tools-heading">Tools</h2>
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
      {tools.error && <p className="error">{problemOf(tools.error).detail}</p>}
      {tools.data?.servers.map((server) => (
        <div key={server.name} className="tool-server" data-testid="tool-server">
          <div className="row">
            <strong>{server.name}</strong>
            <code className="muted">{server.url}</code>
            <span className={`badge ${server.status === "ok" ? "succeeded" : "failed"}`}>
              {server.status}
            </span>
          </div>
          {server.error && <p className="error">{server.error}</p>}
          {server.tools.length > 0 && (
            <table>
              <thead>
                <tr>
                  <th>Tool</th>
                  <th>Description</th>
                  <th>Allowed</th>
                </tr>
              </thead>
              <tbody>
                {server.tools.map((tool) => (
                  <tr key={tool.name}>
                    <td>
                      <code>{tool.name}</code>
                    </td>
                    <td>{tool.description ?? ""}</td>
                    <td>{tool.allowed ? "yes" : "no"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      ))}
    </section>
  );
}
