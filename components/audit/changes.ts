/**
 * What an audit entry changed, from its `before` and `after`: for two objects the top-level
 * fields that differ; for one side alone, the whole of it. Pure, for the page and its tests.
 */

export type FieldChange = { field: string; before: unknown; after: unknown };

export type Changes =
  | { kind: "fields"; fields: FieldChange[] }
  | { kind: "created"; value: unknown }
  | { kind: "deleted"; value: unknown }
  | { kind: "none" };

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Deep equality of JSON values; objects compare whatever the order of their keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameJson(item, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => key in b && sameJson(a[key], b[key]));
}

/** What changed between `before` and `after`, as an entry's "Changes" shows it. */
export function changesOf(before: unknown, after: unknown): Changes {
  const had = before !== null && before !== undefined;
  const has = after !== null && after !== undefined;
  if (!had && !has) return { kind: "none" };
  if (!had) return { kind: "created", value: after };
  if (!has) return { kind: "deleted", value: before };
  if (!isObject(before) || !isObject(after))
    return {
      kind: "fields",
      fields: sameJson(before, after) ? [] : [{ field: "", before, after }],
    };
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return {
    kind: "fields",
    fields: names
      .filter((field) => !sameJson(before[field], after[field]))
      .map((field) => ({ field, before: before[field], after: after[field] })),
  };
}

/** A value as compact JSON; a field one side lacks is `absent`. */
export function compactJson(value: unknown): string {
  return value === undefined ? "absent" : JSON.stringify(value);
}

/**
 * Where the dashboard shows a target: `agent:<aid>`, and an agent's keys, runs and tool calls
 * (`agent_key:<aid>/<id>`, …) on its page; `webhook:<id>`; prices.
 */
export function targetHref(target: string): string | undefined {
  const colon = target.indexOf(":");
  const kind = target.slice(0, colon);
  const rest = target.slice(colon + 1);
  if (colon < 0 || !rest) return undefined;
  if (kind === "agent") return `/dashboard/agents/${encodeURIComponent(rest)}`;
  // An agent's own things, `<aid>/<id>`, are shown on its page.
  if (kind === "agent_key" || kind === "run" || kind === "tool_call") {
    const aid = rest.slice(0, rest.lastIndexOf("/"));
    return aid ? `/dashboard/agents/${encodeURIComponent(aid)}` : undefined;
  }
  if (kind === "webhook") return `/dashboard/webhooks/${encodeURIComponent(rest)}`;
  if (kind === "price") return "/dashboard/prices";
  return undefined;
}
