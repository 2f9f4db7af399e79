import type { Metadata } from "next";
import { AgentPage } from "@/components/agent-page";
import { getConfig } from "@/server/services";

type Props = {
  params: Promise<{ aid: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Agent ${decodeURIComponent((await params).aid)}` };
}

export default async function AgentDetailPage({ params, searchParams }: Props) {
  const { aid } = await params;
  const created = (await searchParams).created === "1";
  return (
    <AgentPage aid={decodeURIComponent(aid)} created={created} publicUrl={getConfig().publicUrl} />
  );
}
