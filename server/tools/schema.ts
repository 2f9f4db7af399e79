import { z } from "zod";
import type { StoredToolCall } from "@/db/schema";
import { LONE_SURROGATE_RULE, NUL_RULE, withoutLoneSurrogate, withoutNul } from "@/server/kit/text";
import { TOOL_OUTCOMES } from "./failures";

// Shared by the procedures, REST, OpenAPI and the dashboard: nothing here may import server-only
// code.

export const MAX_TOOL_STEPS = 20;
export const DEFAULT_MAX_TOOL_STEPS = 5;
export const MAX_MCP_SERVERS = 10;
const MAX_HEADERS = 16;
const MAX_ALLOWED_TOOLS = 128;

const SERVER_NAME_RULE = "1 to 32 letters, digits, _ or -";
const HEADER_NAME_RULE = "an HTTP header name (letters, digits and !#$%&'*+.^_`|~-, up to 100)";
const ENV_RULE = "an environment variable whose name starts with MCP_ (A-Z, 0-9, _)";

/**
 * Headers the MCP client sets itself: a server's configuration may not replace them (the
 * session and protocol headers would break the connection, the others the HTTP framing).
 */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  "accept",
  "connection",
  "content-length",
  "content-type",
  "host",
  "last-event-id",
  "mcp-protocol-version",
  "mcp-session-id",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

const headerNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, `must be ${HEADER_NAME_RULE}`)
  .refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), {
    error: (issue) => `'${String(issue.input)}' is set by the MCP client itself`,
  });

/** A header read from the environment when the server is called: `{"env": "MCP_…"}`. */
export const envHeaderSchema = z
  .strictObject({
    env: z
      .string({ error: `must name ${ENV_RULE}` })
      .regex(/^MCP_[A-Z0-9_]{1,100}$/, `must name ${ENV_RULE}`),
  })
  .meta({
    description: `The value is read from ${ENV_RULE} when the server is called; only the name is stored.`,
  });

/**
 * A header's stored secret, as the agent shows it; sent back (`{"secret": true}`), it keeps
 * the stored value, so a configuration can be read, changed and saved without the secret.
 */
const storedSecretSchema = z
  .object({
    secret: z.literal(true),
    hint: z.string().nullable().meta({
      description:
        "The value's last four characters, when it has 20 or more; null otherwise. The value itself is never shown.",
    }),
  })
  .meta({ description: "A secret value, stored encrypted." });

const headerValueInputSchema = z.union(
  [
    z
      .string()
      .min(1)
      .max(8192)
      .refine((value) => !/[\r\n\0]/.test(value), "must not hold line breaks or NUL")
      // Its hint (the last characters) is stored as it is.
      .refine(withoutLoneSurrogate, LONE_SURROGATE_RULE)
      .meta({ description: "A secret value: stored encrypted, never shown again." }),
    envHeaderSchema,
    z.strictObject({ secret: z.literal(true), hint: z.string().nullable().optional() }).meta({
      description:
        "Keep the value stored for this header of this server (only while its URL keeps its origin).",
    }),
  ],
  {
    error:
      'must be the value (a string, stored encrypted), {"env": "MCP_…"}, or {"secret": true} to keep the stored one',
  },
);

const toolNameSchema = z
  .string()
  .min(1, "a tool name is 1 to 128 characters")
  .max(128, "a tool name is 1 to 128 characters")
  .refine(withoutNul, NUL_RULE)
  .refine(withoutLoneSurrogate, LONE_SURROGATE_RULE);

export const mcpServerInputSchema = z.strictObject({
  name: z
    .string({ error: `must be a name of ${SERVER_NAME_RULE}` })
    .regex(/^[A-Za-z0-9_-]{1,32}$/, `must be a name of ${SERVER_NAME_RULE}`),
  url: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .max(2048, "must be at most 2,048 characters")
    .refine(
      (url) => !/^https?:\/\/[^/?#]*@/i.test(url),
      "must not hold credentials; send them as headers, which are stored encrypted",
    )
    .refine(withoutLoneSurrogate, LONE_SURROGATE_RULE)
    .meta({
      description:
        "The server's Streamable HTTP URL (http or https): on a public host, or a private, loopback or other non-public one MCP_ALLOWED_HOSTS lists; never a cloud metadata address.",
    }),
  headers: z
    .record(headerNameSchema, headerValueInputSchema)
    .refine((headers) => Object.keys(headers).length <= MAX_HEADERS, {
      error: `at most ${MAX_HEADERS} headers`,
    })
    .refine(
      (headers) =>
        new Set(Object.keys(headers).map((name) => name.toLowerCase())).size ===
        Object.keys(headers).length,
      "names a header twice (header names are case-insensitive)",
    )
    .optional(),
  allowed_tools: z
    .array(toolNameSchema)
    .max(MAX_ALLOWED_TOOLS, `at most ${MAX_ALLOWED_TOOLS} tools`)
    .nullable()
    .optional()
    .meta({
      description:
        "The only tools of this server the agent may call; null or left out: every tool the server lists.",
    }),
  approval_required_tools: z
    .array(toolNameSchema)
    .max(MAX_ALLOWED_TOOLS, `at most ${MAX_ALLOWED_TOOLS} tools`)
    .optional()
    .meta({
      description:
        'Tools of this server whose calls wait for a person to approve them (GET /agents/{aid}/approvals), or `["*"]` for all of them; empty or left out: none.',
    }),
});

export const mcpServersInputSchema = z
  .array(mcpServerInputSchema, { error: "must be a list of MCP servers" })
  .max(MAX_MCP_SERVERS, `at most ${MAX_MCP_SERVERS} MCP servers`)
  .refine(
    (servers) => new Set(servers.map((server) => server.name)).size === servers.length,
    "names a server twice",
  )
  .nullable()
  .meta({ description: "MCP servers whose tools the agent may call; null clears the list." });

export type McpServerInput = z.output<typeof mcpServerInputSchema>;

export const maxToolStepsSchema = z
  .int({ error: `must be a whole number from 0 to ${MAX_TOOL_STEPS}` })
  .min(0, `must be a whole number from 0 to ${MAX_TOOL_STEPS}`)
  .max(MAX_TOOL_STEPS, `must be a whole number from 0 to ${MAX_TOOL_STEPS}`)
  .meta({
    description: `Model turns that may call tools in one chat or run (0: tools are never called); then the model answers without them. Default ${DEFAULT_MAX_TOOL_STEPS}.`,
  });

export const mcpServerSchema = z
  .object({
    name: z.string(),
    url: z.string(),
    headers: z.record(z.string(), z.union([envHeaderSchema, storedSecretSchema])),
    allowed_tools: z.array(z.string()).nullable(),
    approval_required_tools: z.array(z.string()),
  })
  .meta({ id: "McpServer" });

export type McpServer = z.infer<typeof mcpServerSchema>;

export const toolCallSchema = z
  .object({
    id: z.string().meta({ description: "The id the model gave the call." }),
    step: z.int().meta({ description: "The model turn that asked for it, from 1." }),
    server: z
      .string()
      .nullable()
      .meta({ description: "The MCP server; null when the model named no tool it was offered." }),
    name: z.string().meta({ description: "The tool's name as the server gives it." }),
    arguments: z.unknown().meta({
      description:
        "The arguments the model gave (a JSON object; the raw text when it was not JSON).",
    }),
    result: z.string().nullable().meta({
      description: "The tool's result as the model saw it (text, cut at MCP_RESULT_MAX_CHARS).",
    }),
    error: z
      .string()
      .nullable()
      .meta({ description: "Why the call failed or was not made; the model was told the same." }),
    duration_ms: z.number(),
  })
  .meta({ id: "ToolCall" });

export type ToolCall = z.infer<typeof toolCallSchema>;

// The stored form (db/schema.ts) is what is shown: the two must not drift apart.
const _sameShape: ToolCall = {} as StoredToolCall;
void _sameShape;

export const toolCallsSchema = z.array(toolCallSchema);

/** The tools of an agent's servers, as each server describes them (GET /agents/{aid}/tools). */
export const agentToolsSchema = z
  .object({
    aid: z.string(),
    servers: z.array(
      z.object({
        name: z.string(),
        url: z.string(),
        status: z.enum(TOOL_OUTCOMES).meta({
          description:
            "ok, or why its tools could not be listed, as a tool call of it would fail: timeout, refused, error (a JSON-RPC error), unreachable.",
        }),
        error: z.string().nullable().meta({
          description:
            "Why the server could not be read, as the model would be told; never what it sent.",
        }),
        tools: z.array(
          z.object({
            name: z.string(),
            description: z.string().nullable(),
            input_schema: z.record(z.string(), z.unknown()),
            allowed: z
              .boolean()
              .meta({ description: "Whether allowed_tools lets the agent call it." }),
          }),
        ),
      }),
    ),
  })
  .meta({ id: "AgentTools" });

export type AgentTools = z.infer<typeof agentToolsSchema>;
