import type { Metadata } from "next";
import { WebhooksPage } from "@/components/webhooks/webhooks-page";
import { getConfig } from "@/server/frame/services";

export const metadata: Metadata = { title: "Webhooks" };
// The retry window is the running service's setting, not the build's.
export const dynamic = "force-dynamic";

export default function Webhooks() {
  return <WebhooksPage retryWindowMs={getConfig().webhooks.retryWindowMs} />;
}
