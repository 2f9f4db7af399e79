"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { lastActivity } from "@/server/quota/view";
import { A2aPanel } from "./a2a-panel";
import { AgentForm } from "./agent-form";
import { ApprovalsPanel } from "./approvals-panel";
import { ChatPanel } from "./chat-panel";
import { KeysPanel } from "./keys-panel";
import { McpPanel } from "./mcp-panel";
import { ModelEndpointsPanel } from "./model-endpoints-panel";
import { OpenAiPanel } from "./openai-panel";
import { PauseAgent } from "./pause-agent";
import { QuotaBars } from "./quota-bars";
import { ResetCounters } from "./reset-counters";
import { RunsPanel } from "./runs-panel";
import { ThreadsPanel } from "./threads-panel";
import { ToolsPanel } from "./tools-panel";
import { trpc } from "./trpc";
import { ConfirmDialog } from "./ui/confirm-dialog";
import { Copyable } from "./ui/copy-button";
import type { Outcome } from "./ui/notice";
import { Notice } from "./ui/notice";
import { PageHeader } from "./ui/page-header";
import { Panel } from "./ui/panel";
import { QueryState } from "./ui/query-state";
import { ReadOnlyNotice } from "./ui/read-only-notice";
import { MaybeTime, RelativeTime } from "./ui/relative-time";
import { type PageSection, PageSectionTarget, SectionNav } from "./ui/section-nav";
import { StatusBadge } from "./ui/status-badge";
import { AgentUsage } from "./usage/usage-sections";
import { useRole } from "./use-role";

/** The agent page's sections, in their order on the page: the links at its top. */
const SECTIONS: PageSection[] = [
  { id: "quota", label: "Quota" },
  { id: "usage", label: "Usage" },
  { id: "chat", label: "Chat" },
  { id: "openai", label: "OpenAI API" },
  { id: "mcp", label: "MCP" },
  { id: "a2a", label: "A2A" },
  { id: "models", label: "Models" },
  { id: "tools", label: "Tools" },
  { id: "approvals", label: "Approvals" },
  { id: "conversations", label: "Conversations" },
  { id: "keys", label: "Agent keys" },
  { id: "runs", label: "Autonomous runs" },
  { id: "configuration", label: "Configuration" },
];

export function AgentPage({
  aid,
  created,
  publicUrl,
  provider,
  thread,
}: {
  aid: string;
  created: boolean;
  /** The service's PUBLIC_URL, for the OpenAI-compatible base URL. */
  publicUrl: string;
  /** The service's model provider: `echo` calls no tools, which the tools panel says. */
  provider: string;
  /** A thread to open in the conversations, from the page's URL. */
  thread?: { caller: string; chat_id: string };
}) {
  const router = useRouter();
  const utils = trpc.useUtils();
  const agent = trpc.agents.get.useQuery({ aid });
  const remove = trpc.agents.delete.useMutation();
  const { role, canOperate } = useRole();
  const [saved, setSaved] = useState<Outcome>();

  return (
    <QueryState
      query={agent}
      what="the agent"
      afterError={<Link href="/dashboard/agents">Back to agents</Link>}
    >
      {(data) => (
        <>
          <PageHeader
            title={data.name}
            detail={
              <>
                <Copyable value={data.aid} what="agent ID" />
                {data.paused && <StatusBadge status="paused" testId="agent-paused" />}
              </>
            }
            actions={
              canOperate && (
                <div className="row">
                  <PauseAgent aid={aid} paused={data.paused} />
                  <ConfirmDialog
                    trigger="Delete agent"
                    title={`Delete ${data.aid}?`}
                    confirmLabel="Delete agent"
                    onConfirm={async () => {
                      await remove.mutateAsync({ aid });
                      utils.agents.list.invalidate();
                      router.replace(`/dashboard/agents?deleted=${encodeURIComponent(aid)}`);
                    }}
                  >
                    <p>
                      The agent goes with its conversations, runs, keys and counters. Its callers
                      are refused from then on, and the ID may be used again. This cannot be undone.
                    </p>
                  </ConfirmDialog>
                </div>
              )
            }
          />
          {role && !canOperate && <ReadOnlyNotice role={role} what="agents" />}
          {created && (
            <Notice variant="info">
              Agent created. Chat with it below, or share its address: /{data.aid}/chat
            </Notice>
          )}
          <SectionNav sections={SECTIONS} />
          <PageSectionTarget id="quota">
            <Panel title="Quota" actions={canOperate && <ResetCounters aid={aid} />}>
              <QuotaBars quota={data.quota} withTokens />
              <p className="muted small-text" data-testid="quota-resets">
                Daily counters reset <RelativeTime value={data.quota.daily_resets_at} />, monthly
                ones <RelativeTime value={data.quota.monthly_resets_at} /> (midnight UTC). Last
                activity: <MaybeTime value={lastActivity(data.quota)} />.
              </p>
            </Panel>
          </PageSectionTarget>
          <PageSectionTarget id="usage">
            <AgentUsage aid={aid} />
          </PageSectionTarget>
          <PageSectionTarget id="chat">
            <ChatPanel aid={aid} />
          </PageSectionTarget>
          <PageSectionTarget id="openai">
            <OpenAiPanel aid={aid} publicUrl={publicUrl} keyOnly={data.chat_access === "key"} />
          </PageSectionTarget>
          <PageSectionTarget id="mcp">
            <McpPanel aid={aid} publicUrl={publicUrl} keyOnly={data.chat_access === "key"} />
          </PageSectionTarget>
          <PageSectionTarget id="a2a">
            <A2aPanel aid={aid} publicUrl={publicUrl} keyOnly={data.chat_access === "key"} />
          </PageSectionTarget>
          <PageSectionTarget id="models">
            <ModelEndpointsPanel aid={aid} endpoints={data.model_endpoints} />
          </PageSectionTarget>
          <PageSectionTarget id="tools">
            <ToolsPanel
              aid={aid}
              servers={data.mcp_servers}
              maxSteps={data.max_tool_steps}
              provider={provider}
            />
          </PageSectionTarget>
          <PageSectionTarget id="approvals">
            <ApprovalsPanel aid={aid} />
          </PageSectionTarget>
          <PageSectionTarget id="conversations">
            {/* A link to another thread (an approval's) opens it afresh. */}
            <ThreadsPanel
              key={thread ? `${thread.caller} ${thread.chat_id}` : ""}
              aid={aid}
              initial={thread}
            />
          </PageSectionTarget>
          <PageSectionTarget id="keys">
            <KeysPanel aid={aid} />
          </PageSectionTarget>
          <PageSectionTarget id="runs">
            <RunsPanel aid={aid} canRun={data.autonomous_prompt !== null} />
          </PageSectionTarget>
          <PageSectionTarget id="configuration">
            <h2>Configuration</h2>
            {/* Once the session is read: the form keeps what it held when it opened, to tell
                edits not saved yet. */}
            {role && (
              <AgentForm
                key={data.updated_at}
                agent={data}
                outcome={saved}
                onOutcome={setSaved}
                readOnly={!canOperate}
              />
            )}
          </PageSectionTarget>
          <p>
            <Link href="/dashboard/agents">Back to agents</Link>
          </p>
        </>
      )}
    </QueryState>
  );
}
