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

/** `0x5B38…ddC4`: enough of an address to tell it apart; the full one goes in a title. */
export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/** A percentage for people: `83%`, `100%`, `<1%`. */
export function formatPercent(fraction: number): string {
  if (fraction > 0 && fraction < 0.01) return "<1%";
  return `${Math.floor(fraction * 100)}%`;
}

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
  chat_access: "the chat access",
  user_address: "the owner address",
  request_id: "the request ID",
  proposal_id: "the proposal ID",
  worker_address: "the worker address",
  input_per_million: "the input price",
  output_per_million: "the output price",
  chat_id: "the thread",
};

/** Boolean fields, whose `is true` reads as a ticked box. */
const CHECKED = /\b(autonomous_enabled) is (true|false)\b/g;
const FIELD_NAMES = new RegExp(`\`?\\b(${Object.keys(FIELD_WORDS).join("|")})\\b\`?`, "g");

/**
 * The server's sentences, written for API clients, in a form's words: null is an empty field
 * (`or null for unlimited`), and a field is called by its label, not its API name. The rule
 * itself is kept: it is the server's own.
 */
export function formWords(detail: string): string {
  return detail
    .replace(/, or null for unlimited/g, ", or left empty for no limit")
    .replace(/, or null\b/g, ", or left empty")
    .replace(/; send null to clear it/g, "; leave it empty to clear it")
    .replace(
      CHECKED,
      (_, field: string, value: string) =>
        `${FIELD_WORDS[field]} is ${value === "true" ? "ticked" : "not ticked"}`,
    )
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
