import type { Metadata } from "next";
import { AgentForm, type NewAgentDefaults } from "@/components/agent-form";
import { OperatorsOnly } from "@/components/operators-only";
import { PageHeader } from "@/components/ui/page-header";
import { getConfig } from "@/server/frame/services";
import { LIMIT_COLUMNS, QUOTA_LIMIT_FIELDS } from "@/server/quota";

export const metadata: Metadata = { title: "New agent" };

export default function NewAgentPage() {
  // What a new agent gets for what is left empty, so the form can say it.
  const { quotaDefaults, chat } = getConfig();
  const defaults: NewAgentDefaults = {
    quota: Object.fromEntries(
      QUOTA_LIMIT_FIELDS.map((field) => [field, quotaDefaults[LIMIT_COLUMNS[field]]]),
    ) as NewAgentDefaults["quota"],
    rate_limit_rpm: chat.defaultRateLimitRpm,
  };
  return (
    <>
      <PageHeader title="New agent" />
      <OperatorsOnly what="agents">
        <AgentForm defaults={defaults} />
      </OperatorsOnly>
    </>
  );
}
