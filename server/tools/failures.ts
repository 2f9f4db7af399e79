/**
 * Why a request to an MCP server failed, in one sentence for the tool call and the tools page.
 * Errors are told apart by `name` and `code`, never `instanceof`: the build may load this module
 * and the SDK in more than one chunk. The sentence never holds what the server sent: its URL may
 * name an internal page an admin must not read through the service.
 */

export const TOOL_OUTCOMES = ["ok", "error", "timeout", "unreachable", "refused"] as const;
export type ToolOutcomeKind = (typeof TOOL_OUTCOMES)[number];
export type Failure = { outcome: Exclude<ToolOutcomeKind, "ok">; error: string };

/** Our own errors' names (requests.ts): what classifies them, in whichever copy they were made. */
export const TIMEOUT_ERROR = "ToolTimeoutError";
export const REFUSED_ERROR = "ToolRequestRefused";

/** The SDK's codes for what it decided itself rather than the server (ErrorCode in its types). */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;
const JSON_RPC_CODES: Record<number, string> = {
  [-32700]: "parse error",
  [-32600]: "invalid request",
  [-32601]: "method not found",
  [-32602]: "invalid params",
  [-32603]: "internal error",
};

export function describeFailure(error: unknown, server: string, timeoutMs: number): Failure {
  const at = `MCP server '${server}'`;
  const name = nameOf(error);
  const code = (error as { code?: unknown } | null)?.code;
  const mcpCode = name === "McpError" && typeof code === "number" ? code : undefined;
  if (name === TIMEOUT_ERROR || name === "TimeoutError" || mcpCode === REQUEST_TIMEOUT)
    return { outcome: "timeout", error: `${at} did not answer within ${timeoutMs} ms.` };
  // Our own sentence (requests.ts), written to follow the server's name.
  if (name === REFUSED_ERROR) return { outcome: "refused", error: `${at} ${messageOf(error)}` };
  if (mcpCode !== undefined && mcpCode !== CONNECTION_CLOSED) {
    const meaning = JSON_RPC_CODES[mcpCode];
    return {
      outcome: "error",
      error: `${at} answered with JSON-RPC error ${mcpCode}${meaning ? ` (${meaning})` : ""}.`,
    };
  }
  const status = httpStatusOf(error);
  if (status !== undefined && status >= 300 && status < 400)
    return {
      outcome: "unreachable",
      error: `${at} answered HTTP ${status}, a redirect the MCP client does not follow.`,
    };
  if (status !== undefined && status >= 400)
    return { outcome: "unreachable", error: `${at} answered HTTP ${status}.` };
  // A 2xx of another content type (the SDK's -1), a body that is not JSON, JSON that is not
  // JSON-RPC or not the result asked for.
  if (status !== undefined || name === "SyntaxError" || name === "ZodError")
    return { outcome: "unreachable", error: `${at} sent an answer that is not MCP.` };
  return { outcome: "unreachable", error: `${at} could not be reached.` };
}

/** The status of the SDK's StreamableHTTPError; its message holds the body, never show it. */
export function httpStatusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" && messageOf(error).startsWith("Streamable HTTP error:")
    ? code
    : undefined;
}

/** A connection failure (refused, reset, DNS) or a closed transport: the session is not usable. */
export function isBroken(error: unknown): boolean {
  if (nameOf(error) === REFUSED_ERROR) return false;
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  const code = typeof cause?.code === "string" ? cause.code : "";
  const message = messageOf(error);
  return (
    /^(ECONN|ENOTFOUND|EAI_AGAIN|EPIPE|UND_ERR)/.test(code) ||
    (nameOf(error) === "TypeError" && /fetch failed/.test(message)) ||
    /Connection closed|Not connected/.test(message)
  );
}

function nameOf(error: unknown): string {
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === "string" ? name : "";
}

function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : "";
}
