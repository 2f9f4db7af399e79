import { AgentPage } from "@/components/agent-page";

export default async function AgentDetailPage({ params }: { params: Promise<{ aid: string }> }) {
  const { aid } = await params;
  return <AgentPage aid={decodeURIComponent(aid)} />;
}
