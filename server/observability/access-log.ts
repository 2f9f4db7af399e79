import { requestLog } from "./log.ts";

/** What one request's log line says (never its body, query, keys or cookies). */
export type AccessEntry = {
  requestId: string;
  method: string;
  /** The operation's declared path, so that lines group by operation; else the request's path. */
  route: string;
  status: number;
  durationMs: number;
  aid?: string;
  /** admin, wallet, key or anonymous; absent when the request had no context. */
  caller?: string;
  /** The line's level, where its status alone would say otherwise (default: error from 500). */
  level?: "info" | "error";
};

export function logRequest(entry: AccessEntry): void {
  const level = entry.level ?? (entry.status >= 500 ? "error" : "info");
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
