/**
 * Formatters for the dashboard: numbers, counts, costs, addresses, and the server's sentences in
 * the words a person uses. Dates and times are in dates.ts.
 */

const numbers = new Intl.NumberFormat("en");

export function formatNumber(n: number): string {
  return numbers.format(n);
}

/** `1 agent`, `2 agents`, `1,204 agents`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

/** "a viewer", "an operator", "an owner". */
export const aRole = (role: string) => (/^[aeiou]/.test(role) ? `an ${role}` : `a ${role}`);

/** `0x5B38…ddC4`: enough of an address to tell it apart; the full one goes in a title. */
export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/** A percentage for people: `83%`, `100%`, `<1%`. */
export function formatPercent(fraction: number): string {
  if (fraction > 0 && fraction < 0.01) return "<1%";
  return `${Math.floor(fraction * 100)}%`;
}

/** The quota limits (QUOTA_LIMIT_FIELDS) as the agent form labels them. */
export const LIMIT_LABELS: Record<string, string> = {
  message_limit_total: "Messages in total",
  message_limit_monthly: "Messages per month",
  message_limit_daily: "Messages per day",
  autonomous_limit_total: "Autonomous runs in total",
  autonomous_limit_monthly: "Autonomous runs per month",
  token_limit_total: "Tokens in total",
  token_limit_monthly: "Tokens per month",
  token_limit_daily: "Tokens per day",
};

/**
 * The API's field names, as the dashboard's pages call them: a sentence of the service's names
 * the field it is about as an API client sends it (`user_address`), which a person at a form
 * never sees.
 */
const FIELD_WORDS: Record<string, string> = {
  autonomous_enabled: "“Run on a schedule”",
  autonomous_prompt: "the instruction for each run",
  autonomous_minutes: "the minutes between runs",
  autonomous_cron: "the cron schedule",
  autonomous_timezone: "the time zone",
  rate_limit_rpm: "the chats a minute per caller",
  max_tool_steps: "the model turns that may call tools",
  mcp_servers: "the MCP servers",
  model_endpoints: "the model endpoints",
  chat_access: "the chat access",
  user_address: "the owner address",
  request_id: "the request ID",
  proposal_id: "the proposal ID",
  worker_address: "the worker address",
  deployment_details: "the deployment details",
  input_per_million: "the input price",
  output_per_million: "the output price",
  expires_at: "the “Works until” day",
  chat_id: "the thread",
};

/**
 * Names too common to replace anywhere in a sentence (`url`, `events`): replaced only where a
 * sentence names an invalid field ("The request has invalid fields: url is …").
 */
const PLAIN_FIELD_WORDS: Record<string, string> = {
  url: "the URL",
  events: "the events",
  description: "the description",
  name: "the name",
  model: "the model",
  prompt: "the system prompt",
  temperature: "the temperature",
};

/** What an MCP server's field is called in its form. */
const SERVER_FIELD_WORDS: Record<string, string> = {
  name: "name",
  url: "URL",
  allowed_tools: "tools the agent may call",
  approval_required_tools: "tools that need approval",
  headers: "headers",
};

/** What a model endpoint's field is called in its form. */
const ENDPOINT_FIELD_WORDS: Record<string, string> = {
  name: "name",
  base_url: "base URL",
  model: "model",
  api_key: "API key",
  api_key_env: "API key's variable",
  timeout_ms: "wait for the first token",
};

/**
 * A field's path as a problem gives it (`mcp_servers.0.name`, `quota.message_limit_daily`,
 * `expires_at`) in the words of the form that has it; undefined for a path no form shows.
 */
export function fieldLabel(path: string): string | undefined {
  const server =
    /^mcp_servers\.(\d+)(?:\.(name|url|allowed_tools|approval_required_tools|headers)(?:\.(.+))?)?$/.exec(
      path,
    );
  if (server) {
    const which = `MCP server ${Number(server[1]) + 1}`;
    const [, , field, header] = server;
    if (!field) return which;
    if (field === "headers" && header) return `${which}'s header ${header}`;
    return `${which}'s ${SERVER_FIELD_WORDS[field]}`;
  }
  const endpoint = /^model_endpoints\.(\d+)(?:\.(\w+))?$/.exec(path);
  if (endpoint) {
    const which = `model endpoint ${Number(endpoint[1]) + 1}`;
    const field = endpoint[2] && ENDPOINT_FIELD_WORDS[endpoint[2]];
    return field ? `${which}'s ${field}` : which;
  }
  const limit = /^quota\.(\w+)$/.exec(path)?.[1];
  if (limit && LIMIT_LABELS[limit]) return `the limit “${LIMIT_LABELS[limit]}”`;
  return FIELD_WORDS[path] ?? PLAIN_FIELD_WORDS[path];
}

/** Boolean fields, whose `is true` reads as a ticked box. */
const CHECKED = /\b(autonomous_enabled) is (true|false)\b/g;
const FIELD_NAMES = new RegExp(`\`?\\b(${Object.keys(FIELD_WORDS).join("|")})\\b\`?`, "g");
/** Field paths through lists and objects (`mcp_servers.0.headers.X-Key`, `quota.token_limit_daily`). */
const FIELD_PATHS =
  /\b(?:mcp_servers\.\d+(?:\.(?:name|url|(?:allowed|approval_required)_tools(?:\.\d+)?|headers(?:\.[\w-]+)?))?|model_endpoints\.\d+(?:\.\w+)?|quota\.\w+)/g;
const INVALID_FIELDS = /^(The request has invalid fields: )(.*)$/s;

/**
 * The server's sentences, written for API clients, in a form's words: null is an empty field
 * (`or null for unlimited`), a field is called by its label, not its API name or path, and what
 * an API client would send to change something is what the page offers for it. The rule itself
 * is kept: it is the server's own.
 */
export function formWords(detail: string): string {
  const named = INVALID_FIELDS.exec(detail);
  const fields = named
    ? `${named[1]}${(named[2] as string)
        .split("; ")
        .map((part) => part.replace(/^\w+(?=\s)/, (name) => PLAIN_FIELD_WORDS[name] ?? name))
        .join("; ")}`
    : detail;
  return fields
    .replace(/, or null for unlimited/g, ", or left empty for no limit")
    .replace(/, or null\b/g, ", or left empty")
    .replace(/; send null to clear it/g, "; leave it empty to clear it")
    .replace(
      / ?PATCH \{"enabled": true\} starts deliveries again\./g,
      " “Enable” starts deliveries again.",
    )
    .replace(/ \(PATCH with \{"enabled": true\}\)/g, " with “Enable” on its page")
    .replace(
      CHECKED,
      (_, field: string, value: string) =>
        `${FIELD_WORDS[field]} is ${value === "true" ? "ticked" : "not ticked"}`,
    )
    .replace(FIELD_PATHS, (path) => fieldLabel(path) ?? path)
    .replace(FIELD_NAMES, (_, field: string) => FIELD_WORDS[field] ?? field);
}

/** A limit for people: a number, or `no limit` for null (undefined: not known here). */
export function formNumber(n: number | null | undefined): string {
  return n === null ? "no limit" : n === undefined ? "?" : formatNumber(n);
}

const costs = new Intl.NumberFormat("en", { maximumSignificantDigits: 4 });

/** A cost in the operator's currency (prices have no currency here): `0.0136`, `1,204`. */
export function formatCost(cost: number): string {
  return costs.format(cost);
}
