import type { Metadata } from "next";
import { WebhookPage } from "@/components/webhooks/webhook-page";

type Props = { params: Promise<{ id: string }> };

export const metadata: Metadata = { title: "Webhook endpoint" };

export default async function WebhookDetail({ params }: Props) {
  return <WebhookPage id={decodeURIComponent((await params).id)} />;
}
