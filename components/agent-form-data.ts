import type { Agent } from "@/server/agents/schema";
import { QUOTA_LIMIT_FIELDS } from "@/server/quota/schema";

/**
 * The agent form as an upsert input. Empty text is null (cleared); numbers are parsed. On a new
 * agent, what is left empty is left out, so the service's defaults apply (name = the ID, the
 * configured limits and rate); on an edit, empty clears it (no limit), except the name, which
 * must not be empty: the schema says so beside the field rather than keeping the old one.
 */
export function readAgentForm(data: FormData, agent: Agent | undefined): Record<string, unknown> {
  const text = (name: string) => {
    const value = String(data.get(name) ?? "").trim();
    return value === "" ? null : value;
  };
  const number = (name: string) => {
    const value = text(name);
    return value === null ? null : Number(value);
  };
  const quota: Record<string, number | null> = {};
  for (const name of QUOTA_LIMIT_FIELDS) {
    const value = number(`quota.${name}`);
    if (value !== null || agent) quota[name] = value;
  }
  const name = text("name");
  const rateLimit = number("rate_limit_rpm");
  return {
    aid: agent?.aid ?? text("aid") ?? "",
    ...(name !== null ? { name } : agent ? { name: "" } : {}),
    model: text("model"),
    prompt: text("prompt"),
    temperature: number("temperature"),
    autonomous_enabled: data.get("autonomous_enabled") === "on",
    autonomous_minutes: number("autonomous_minutes") ?? 60,
    autonomous_prompt: text("autonomous_prompt"),
    autonomous_cron: text("autonomous_cron"),
    autonomous_timezone: text("autonomous_timezone") ?? "UTC",
    chat_access: text("chat_access") ?? "public",
    max_tool_steps: number("max_tool_steps") ?? 5,
    ...(rateLimit !== null || agent ? { rate_limit_rpm: rateLimit } : {}),
    quota,
  };
}
