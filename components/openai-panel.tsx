"use client";

import styles from "./openai-panel.module.css";
import { Copyable, CopyButton } from "./ui/copy-button";
import { Panel } from "./ui/panel";

/**
 * How to call the agent as an OpenAI-compatible model (POST /v1/chat/completions and
 * POST /v1/responses): the base URL and a snippet for the official SDK of each, ready to copy.
 */
export function OpenAiPanel({
  aid,
  publicUrl,
  keyOnly,
}: {
  aid: string;
  publicUrl: string;
  keyOnly: boolean;
}) {
  const baseUrl = `${publicUrl}/v1`;
  const snippet = `import OpenAI from "openai";

const client = new OpenAI({
  baseURL: ${JSON.stringify(baseUrl)},
  // ${keyOnly ? "A key of this agent (Keys, below)." : 'A key of this agent, or a placeholder such as "anonymous": it is public.'}
  apiKey: process.env.AGENT_KEY,
});
const completion = await client.chat.completions.create({
  model: ${JSON.stringify(aid)},
  messages: [{ role: "user", content: "Hello" }],
});
console.log(completion.choices[0].message.content);`;
  const responsesSnippet = `${snippet.slice(0, snippet.indexOf("const completion"))}const response = await client.responses.create({
  model: ${JSON.stringify(aid)},
  input: "Hello",
});
console.log(response.output_text);`;
  return (
    <Panel title="OpenAI-compatible API" actions={<CopyButton value={snippet} what="snippet" />}>
      <p>
        Any OpenAI client can ask this agent: its model id is <code>{aid}</code>, the base URL{" "}
        <Copyable value={baseUrl} what="base URL" />. The same quota, keys and limits apply as for
        its chat; one completion is one message.
      </p>
      <pre className={styles.snippet} data-testid="openai-snippet">
        <code>{snippet}</code>
      </pre>
      <p>
        Or through the Responses API, which keeps each response to continue with{" "}
        <code>previous_response_id</code>:{" "}
        <CopyButton value={responsesSnippet} what="Responses snippet" />
      </p>
      <pre className={styles.snippet} data-testid="responses-snippet">
        <code>{responsesSnippet}</code>
      </pre>
    </Panel>
  );
}
