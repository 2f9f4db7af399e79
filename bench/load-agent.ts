import { TEST_ADMIN_KEY } from "../tests/helpers/server";

/**
 * Makes an agent for load through the service's API: one load generator is one caller, so the
 * agent has no per-caller rate limit and no message limits, and every chat is measured rather
 * than refused. The baseline reads the same row.
 */
export async function createLoadAgent(
  serviceUrl: string,
  agent: {
    aid: string;
    model: string;
    name?: string;
    prompt?: string;
    model_endpoints?: { name: string; base_url: string; model: string; api_key?: string }[];
  },
): Promise<void> {
  const response = await fetch(`${serviceUrl}/agents`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({
      ...agent,
      rate_limit_rpm: null,
      quota: { message_limit_total: null, message_limit_monthly: null, message_limit_daily: null },
    }),
  });
  if (response.status !== 201) throw new Error(`POST /agents ${agent.aid}: ${response.status}`);
}
