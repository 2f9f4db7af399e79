import type { StoredMcpServer } from "@/db/schema";
import { type FieldError, invalidFields } from "@/server/frame/errors";
import type { HostRule } from "@/server/kit/allowed-hosts";
import type { McpTarget } from "./pool";
import { serverUrlProblem } from "./requests";
import type { McpServer, McpServerInput } from "./schema";
import { decryptHeader, encryptHeader, secretHint } from "./secrets";

// An agent's MCP servers between their three forms: as sent (secrets in plain text once), as
// stored (encrypted, or an environment variable's name), and as shown (never a secret's value).

type Env = Record<string, string | undefined>;

/**
 * The servers to store for `input`: URLs checked, secrets encrypted, `{"secret": true}` replaced by
 * the stored value only while the server's URL keeps its origin (a kept secret never goes to
 * another server), environment references checked. 400 with a field per problem.
 */
export function storeServers(
  input: McpServerInput[],
  current: StoredMcpServer[],
  {
    key,
    allowedHosts,
    env = process.env,
  }: { key: Uint8Array; allowedHosts: HostRule[]; env?: Env },
): StoredMcpServer[] {
  const errors: FieldError[] = [];
  const stored = input.map((server, index): StoredMcpServer => {
    const at = `mcp_servers.${index}`;
    const url = new URL(server.url);
    const problem = serverUrlProblem(url, allowedHosts);
    if (problem) errors.push({ field: `${at}.url`, detail: problem });
    const before = current.find((candidate) => candidate.name === server.name);
    const sameOrigin = before !== undefined && new URL(before.url).origin === url.origin;
    const headers: StoredMcpServer["headers"] = {};
    for (const [name, value] of Object.entries(server.headers ?? {})) {
      const field = `${at}.headers.${name}`;
      if (typeof value === "string") {
        headers[name] = {
          enc: encryptHeader(key, value, { origin: url.origin, header: name }),
          hint: secretHint(value),
        };
      } else if ("env" in value) {
        if (!env[value.env])
          errors.push({ field, detail: `names ${value.env}, which is not set on this server` });
        headers[name] = { env: value.env };
      } else {
        const kept = Object.entries(before?.headers ?? {}).find(
          ([storedName]) => storedName.toLowerCase() === name.toLowerCase(),
        )?.[1];
        if (!kept || !("enc" in kept))
          errors.push({ field, detail: "has no stored value to keep; send the value" });
        else if (!sameOrigin)
          errors.push({
            field,
            detail: "cannot keep its stored value for another origin; send the value again",
          });
        else headers[name] = kept;
      }
    }
    return {
      name: server.name,
      url: server.url,
      headers,
      allowed_tools: server.allowed_tools ?? null,
      ...(server.approval_required_tools?.length
        ? { approval_required_tools: [...new Set(server.approval_required_tools)] }
        : {}),
    };
  });
  if (errors.length > 0) throw invalidFields(errors);
  return stored;
}

/** The servers as an agent shows them: secrets as `{"secret": true, "hint"}`, env names as they are. */
export function presentServers(stored: StoredMcpServer[]): McpServer[] {
  return stored.map((server) => ({
    name: server.name,
    url: server.url,
    headers: Object.fromEntries(
      Object.entries(server.headers).map(([name, value]) => [
        name,
        "env" in value ? { env: value.env } : { secret: true as const, hint: value.hint },
      ]),
    ),
    allowed_tools: server.allowed_tools,
    approval_required_tools: server.approval_required_tools ?? [],
  }));
}

/** Where to call the server, with its headers' values; or why they cannot be had. */
export function resolveTarget(
  server: StoredMcpServer,
  key: Uint8Array | undefined,
  env: Env = process.env,
): { target: McpTarget } | { problem: string } {
  const origin = new URL(server.url).origin;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(server.headers)) {
    if ("env" in value) {
      const found = env[value.env];
      if (!found)
        return {
          problem: `its header ${name} names ${value.env}, which is not set on this server.`,
        };
      headers[name] = found;
    } else {
      const plain = key && decryptHeader(key, value.enc, { origin, header: name });
      if (plain === undefined)
        return {
          problem: `its header ${name} cannot be read (stored under another admin key?); set it again.`,
        };
      headers[name] = plain;
    }
  }
  return { target: { url: server.url, headers } };
}
