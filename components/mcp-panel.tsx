"use client";

import styles from "./openai-panel.module.css";
import { Copyable, CopyButton } from "./ui/copy-button";
import { Panel } from "./ui/panel";

/**
 * How to reach the agent as an MCP server (POST /{aid}/mcp): its URL and a client's
 * configuration (VS Code's, which asks for the key), both ready to copy. docs/mcp.md has others.
 */
export function McpPanel({
  aid,
  publicUrl,
  keyOnly,
}: {
  aid: string;
  publicUrl: string;
  keyOnly: boolean;
}) {
  const url = `${publicUrl}/${encodeURIComponent(aid)}/mcp`;
  const server = {
    type: "http",
    url,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code fills ${input:…} in from its prompt.
    ...(keyOnly ? { headers: { Authorization: "Bearer ${input:agent-key}" } } : {}),
  };
  const config = JSON.stringify(
    {
      ...(keyOnly
        ? {
            inputs: [
              { type: "promptString", id: "agent-key", description: "Agent key", password: true },
            ],
          }
        : {}),
      servers: { [aid]: server },
    },
    null,
    2,
  );
  return (
    <Panel title="MCP server" actions={<CopyButton value={config} what="configuration" />}>
      <p>
        MCP clients (Claude, VS Code, Cursor, other agents) call this agent as a tool,{" "}
        <code>chat</code>, at <Copyable value={url} what="MCP URL" />
        {keyOnly ? ", with one of its keys as a bearer token" : ""}. The same quota, keys and limits
        apply as for its chat; one call is one message. For VS Code, <code>.vscode/mcp.json</code>:
      </p>
      <pre className={styles.snippet} data-testid="mcp-config">
        <code>{config}</code>
      </pre>
    </Panel>
  );
}
