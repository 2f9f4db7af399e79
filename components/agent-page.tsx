"use client";

import Link from "next/link";
import { AgentForm } from "./agent-form";
import { ChatPanel } from "./chat-panel";
import { QuotaBars } from "./quota-bars";
import { RunsPanel } from "./runs-panel";
import { problemOf, trpc } from "./trpc";

export function AgentPage({ aid }: { aid: string }) {
  const utils = trpc.useUtils();
  const agent = trpc.agents.get.useQuery({ aid });
  const reset = trpc.agents.resetQuota.useMutation({ onSuccess: () => utils.agents.invalidate() });

  if (agent.isPending) return <p aria-busy="true">Loading…</p>;
  if (agent.error) {
    return (
      <>
        <p className="error">{problemOf(agent.error).detail}</p>
        <Link href="/dashboard/agents">Back to agents</Link>
      </>
    );
  }
  return (
    <>
      <div className="row" style={{ marginBottom: "1rem" }}>
        <h1 style={{ margin: 0 }}>{agent.data.name}</h1>
        <code className="muted">{agent.data.aid}</code>
      </div>
      <section className="panel" aria-labelledby="quota-heading">
        <div className="row">
          <h2 id="quota-heading" style={{ margin: 0 }}>
            Quota
          </h2>
          <span className="spacer" />
          <button
            type="button"
            className="danger"
            disabled={reset.isPending}
            onClick={() => {
              if (window.confirm(`Set every counter of ${aid} back to 0?`)) reset.mutate({ aid });
            }}
          >
            Reset counters
          </button>
        </div>
        <QuotaBars quota={agent.data.quota} />
      </section>
      <ChatPanel aid={aid} />
      <RunsPanel aid={aid} />
      <h2>Configuration</h2>
      <AgentForm key={agent.data.updated_at} agent={agent.data} />
    </>
  );
}
