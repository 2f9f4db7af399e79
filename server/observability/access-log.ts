import { requestLog } from "./log.ts";

/** What one request's log line says (never its body, query, keys or cookies). */
export type AccessEntry = {
  requestId: string;
  method: string;
  /** The route's pattern (`/{aid}/chat`), not the path, so lines group by endpoint. */
  route: string;
  status: number;
  durationMs: number;
  aid?: string;
  /** admin, wallet, key or anonymous; absent when the request had no context. */
  caller?: string;
};

export function logRequest(entry: AccessEntry): void {
  const level = entry.status >= 500 ? "error" : "info";
  requestLog[level](
    {
      request_id: entry.requestId,
      method: entry.method,
      route: entry.route,
      status: entry.status,
      duration_ms: Math.round(entry.durationMs * 10) / 10,
      ...(entry.aid === undefined ? {} : { aid: entry.aid }),
      ...(entry.caller === undefined ? {} : { caller: entry.caller }),
    },
    "request",
  );
}

/** The path with each route parameter's value put back as `{name}`. */
export function routePattern(
  pathname: string,
  params: Record<string, string | string[] | undefined>,
): string {
  const names = new Map<string, string>();
  for (const [name, value] of Object.entries(params)) {
    for (const part of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      names.set(part, Array.isArray(value) ? `{${name}...}` : `{${name}}`);
    }
  }
  return pathname
    .split("/")
    .map((segment) => {
      let decoded = segment;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        // kept as sent (the proxy refuses such paths before they get here)
      }
      return names.get(decoded) ?? segment;
    })
    .join("/");
}
