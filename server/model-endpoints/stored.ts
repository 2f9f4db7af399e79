import type { StoredModelEndpoint } from "@/db/schema";
import { type FieldError, invalidFields } from "@/server/frame/errors";
import type { HostRule } from "@/server/kit/allowed-hosts";
import { urlProblem } from "@/server/kit/outgoing";
import { seal, unseal } from "@/server/kit/secret-box";
import { secretHint } from "@/server/tools";
import type { ModelEndpoint, ModelEndpointInput } from "./schema";

// An agent's model endpoints between their three forms: as sent (the API key in plain text once),
// as stored (encrypted, or an environment variable's name), and as shown (never the key).

type Env = Record<string, string | undefined>;

export const SETTING = "MODEL_ALLOWED_HOSTS";

const boundTo = (origin: string) => `model-endpoint\0${origin}`;

/** The endpoints to store for `input`: URLs checked, keys encrypted; 400 with a field per problem. */
export function storeEndpoints(
  input: ModelEndpointInput[],
  current: StoredModelEndpoint[],
  {
    key,
    allowedHosts,
    env = process.env,
  }: { key: Uint8Array; allowedHosts: HostRule[]; env?: Env },
): StoredModelEndpoint[] {
  const errors: FieldError[] = [];
  const stored = input.map((endpoint, index): StoredModelEndpoint => {
    const at = `model_endpoints.${index}`;
    const url = new URL(endpoint.base_url);
    const problem = urlProblem(url, allowedHosts, SETTING);
    if (problem) errors.push({ field: `${at}.base_url`, detail: problem });
    let apiKey: StoredModelEndpoint["api_key"] = null;
    const given = endpoint.api_key;
    if (typeof given === "string") {
      apiKey = { enc: seal(key, given, boundTo(url.origin)), hint: secretHint(given) };
    } else if (given) {
      const before = current.find((candidate) => candidate.name === endpoint.name);
      if (!before?.api_key)
        errors.push({ field: `${at}.api_key`, detail: "has no stored key to keep; send the key" });
      else if (new URL(before.base_url).origin !== url.origin)
        errors.push({
          field: `${at}.api_key`,
          detail: "cannot keep its stored key for another origin; send the key again",
        });
      else apiKey = before.api_key;
    }
    const fromEnv = endpoint.api_key_env ?? null;
    if (fromEnv !== null && apiKey)
      errors.push({
        field: `${at}.api_key_env`,
        detail: "is set beside api_key; send one of them",
      });
    else if (fromEnv !== null && !env[fromEnv])
      errors.push({
        field: `${at}.api_key_env`,
        detail: `names ${fromEnv}, which is not set on this server`,
      });
    return {
      name: endpoint.name,
      base_url: endpoint.base_url,
      model: endpoint.model,
      api_key: apiKey,
      api_key_env: fromEnv,
      timeout_ms: endpoint.timeout_ms ?? null,
    };
  });
  if (errors.length > 0) throw invalidFields(errors);
  return stored;
}

/** The endpoints as an agent shows them: a stored key as `{"secret": true, "hint"}`. */
export function presentEndpoints(stored: StoredModelEndpoint[]): ModelEndpoint[] {
  return stored.map((endpoint) => ({
    name: endpoint.name,
    base_url: endpoint.base_url,
    model: endpoint.model,
    api_key: endpoint.api_key ? { secret: true as const, hint: endpoint.api_key.hint } : null,
    api_key_env: endpoint.api_key_env,
    timeout_ms: endpoint.timeout_ms,
  }));
}

/** The endpoint's API key (undefined for none), or why it cannot be had. */
export function endpointKey(
  endpoint: StoredModelEndpoint,
  key: Uint8Array | undefined,
  env: Env = process.env,
): { apiKey: string | undefined } | { problem: string } {
  if (endpoint.api_key_env !== null) {
    const found = env[endpoint.api_key_env];
    return found
      ? { apiKey: found }
      : {
          problem: `its api_key_env names ${endpoint.api_key_env}, which is not set on this server`,
        };
  }
  if (!endpoint.api_key) return { apiKey: undefined };
  const plain =
    key && unseal(key, endpoint.api_key.enc, boundTo(new URL(endpoint.base_url).origin));
  return plain === undefined
    ? { problem: "its api_key cannot be read (stored under another admin key?); set it again" }
    : { apiKey: plain };
}
