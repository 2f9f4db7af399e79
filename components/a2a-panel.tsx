"use client";

import styles from "./openai-panel.module.css";
import { Copyable, CopyButton } from "./ui/copy-button";
import { Panel } from "./ui/panel";

/**
 * How another agent reaches this one over A2A: its card's URL, from which A2A clients find the
 * JSON-RPC interface, and a snippet for `@a2a-js/sdk`'s client. docs/a2a.md has the rest.
 */
export function A2aPanel({
  aid,
  publicUrl,
  keyOnly,
}: {
  aid: string;
  publicUrl: string;
  keyOnly: boolean;
}) {
  const cardPath = `/${encodeURIComponent(aid)}/.well-known/agent-card.json`;
  const cardUrl = `${publicUrl}${cardPath}`;
  const open = `const client = await new ClientFactory().createFromUrl(${JSON.stringify(publicUrl)}, ${JSON.stringify(cardPath)});`;
  // An agent that takes its keys only: the client's requests carry one as a bearer token.
  const keyed = `const withKey = (url, init) => {
  const headers = new Headers(init?.headers);
  headers.set("authorization", \`Bearer \${process.env.AGENT_KEY}\`); // a key of this agent (Keys, below)
  return fetch(url, { ...init, headers });
};
const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
  transports: [new JsonRpcTransportFactory({ fetchImpl: withKey })],
}));
const client = await factory.createFromUrl(${JSON.stringify(publicUrl)}, ${JSON.stringify(cardPath)});`;
  const snippet = `import { ${keyOnly ? "ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory" : "ClientFactory"} } from "@a2a-js/sdk/client";

${keyOnly ? keyed : open}
const task = await client.sendMessage({
  message: {
    messageId: crypto.randomUUID(),
    role: 1, // the user
    parts: [{ content: { $case: "text", value: "Hello" }, mediaType: "text/plain" }],
    contextId: "my-conversation",
  },
});
console.log(task.artifacts[0].parts[0].content.value);`;
  return (
    <Panel title="A2A server" actions={<CopyButton value={snippet} what="A2A snippet" />}>
      <p>
        Other agents send this agent messages over A2A 1.0, found from its card at{" "}
        <Copyable value={cardUrl} what="agent card URL" />
        {keyOnly ? ", with one of its keys as a bearer token" : ""}. The same quota, keys and limits
        apply as for its chat; one message is one message. With <code>@a2a-js/sdk</code>:
      </p>
      <pre className={styles.snippet} data-testid="a2a-snippet">
        <code>{snippet}</code>
      </pre>
    </Panel>
  );
}
