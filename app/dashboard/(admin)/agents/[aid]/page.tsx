import type { Metadata } from "next";
import { AgentPage } from "@/components/agent-page";
import { getConfig } from "@/server/frame/services";
import { providerName } from "@/server/providers";

type Props = {
  params: Promise<{ aid: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Agent ${decodeURIComponent((await params).aid)}` };
}

/** One value of a query parameter (the first, when it is given more than once). */
const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export default async function AgentDetailPage({ params, searchParams }: Props) {
  const { aid } = await params;
  const query = await searchParams;
  const created = query.created === "1";
  // `?thread=<chat_id>&caller=<caller>` (a link of the request log): that thread opens at once.
  const chatId = one(query.thread);
  const thread = chatId ? { chat_id: chatId, caller: one(query.caller) || "admin" } : undefined;
  return (
    <AgentPage
      aid={decodeURIComponent(aid)}
      created={created}
      publicUrl={getConfig().publicUrl}
      provider={providerName(getConfig().llm)}
      thread={thread}
    />
  );
}
