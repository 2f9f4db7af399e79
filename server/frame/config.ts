import { availableParallelism } from "node:os";
import { z } from "zod";
// Relative, with its extension: the server entry (server/instance/main.ts) runs this file in
// Node.js itself, which knows no `@/` paths.
import { parseAllowedHosts } from "../kit/allowed-hosts.ts";
import { parseRoleRules } from "../kit/oidc-rules.ts";

// Environment configuration, validated once at start-up. Every variable is optional: the
// defaults run the whole service offline on one machine with the embedded database.

// `FOO=` in a .env file means "not set", not "set to the empty string".
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema.optional());

/** A limit: a whole number (of messages, runs, chats a minute), or `unlimited`. */
const quotaLimit = (fallback: number | null, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(
    (value) => (value === "" || value === undefined ? fallback : value),
    z.union([
      z.literal("unlimited").transform(() => null),
      z.null(),
      z.coerce
        .number({ error: "must be a whole number or `unlimited`" })
        .int("must be a whole number or `unlimited`")
        .min(min, `must be ${min} or more`)
        .max(max, `must be at most ${max.toLocaleString("en")}`),
    ]),
  );

const pricePerMillion = z
  .number({ error: "must be a number (a price per million tokens)" })
  .min(0, "must not be negative")
  .max(1_000_000, "must be at most 1,000,000");

/** MODEL_PRICES: `{"<model>": {"input": <price>, "output": <price>}}`, per million tokens. */
const modelPricesSchema = z.record(
  z.string().min(1, "a model name must not be empty").max(200),
  z.strictObject({ input: pricePerMillion, output: pricePerMillion }),
  { error: 'must be an object like {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}' },
);

/** The shortest admin key there can be. */
export const ADMIN_KEY_MIN_LENGTH = 16;

export const envSchema = z.object({
  PORT: optional(z.coerce.number().int().min(1).max(65_535)).default(3000),
  // Loopback unless told: a first start must not offer the dashboard and a generated admin key
  // to the network.
  HOST: optional(z.string().min(1)).default("127.0.0.1"),
  WEB_CONCURRENCY: optional(
    z.coerce
      .number({ error: "must be a whole number of processes" })
      .int("must be a whole number of processes")
      .min(1, "must be 1 or more")
      .max(256, "must be at most 256"),
  ),
  REST_ROUTING: optional(
    z.enum(["direct", "nextjs"], { error: "must be 'direct' or 'nextjs'" }),
  ).default("direct"),
  PUBLIC_URL: optional(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" })),
  DATA_DIR: optional(z.string()).default("./.data"),
  DATABASE_URL: optional(
    z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL"),
  ),
  DATABASE_POOL_SIZE: optional(z.coerce.number().int().min(1).max(1000)).default(20),
  DATABASE_POOL_MODE: optional(
    z.enum(["session", "transaction"], { error: "must be 'session' or 'transaction'" }),
  ).default("session"),
  ADMIN_API_KEY: optional(
    z
      .string()
      .min(ADMIN_KEY_MIN_LENGTH, `must be at least ${ADMIN_KEY_MIN_LENGTH} characters long`),
  ),
  LLM_BASE_URL: optional(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" })),
  LLM_API_KEY: optional(z.string()),
  LLM_MODEL: optional(z.string().min(1)).default("gpt-4o-mini"),
  LLM_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(600_000)).default(60_000),
  LLM_MAX_CONCURRENCY: optional(z.coerce.number().int().min(1).max(10_000)).default(512),
  LLM_MAX_RETRIES: optional(z.coerce.number().int().min(0).max(10)).default(2),
  LLM_MAX_OUTPUT_TOKENS: optional(z.coerce.number().int().min(1).max(1_000_000)).default(1024),
  MODEL_ALLOWED_HOSTS: optional(z.string()).default(""),
  MODEL_CIRCUIT_FAILURES: optional(
    z.coerce
      .number({ error: "must be a whole number of failures" })
      .int("must be a whole number of failures")
      .min(1, "must be 1 or more")
      .max(1000, "must be at most 1,000"),
  ).default(5),
  MODEL_CIRCUIT_OPEN_S: optional(
    z.coerce
      .number({ error: "must be a number of seconds" })
      .min(0.1, "must be 0.1 or more")
      .max(3600, "must be at most 3,600"),
  ).default(30),
  CHAT_MAX_REPLY_CHARS: optional(z.coerce.number().int().min(1).max(1_000_000)).default(16_000),
  CHAT_HISTORY_MESSAGES: optional(z.coerce.number().int().min(0).max(1000)).default(20),
  CHAT_HISTORY_MAX_CHARS: optional(z.coerce.number().int().min(0).max(10_000_000)).default(24_000),
  CHAT_RATE_LIMIT_RPM: quotaLimit(60, 1, 1_000_000),
  CHAT_RESUME_S: optional(
    z.coerce
      .number({ error: "must be a number of seconds" })
      .int("must be a whole number of seconds")
      .min(0, "must be 0 (streams end with their client) or more")
      .max(3600, "must be at most 3,600"),
  ).default(30),
  COMPLETIONS_MAX_INPUT_CHARS: optional(z.coerce.number().int().min(1).max(10_000_000)).default(
    100_000,
  ),
  TRUST_PROXY: optional(z.coerce.number().int().min(0).max(10)).default(0),
  LOG_LEVEL: optional(
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
      error: "must be fatal, error, warn, info, debug, trace or silent",
    }),
  ).default("info"),
  METRICS_TOKEN: optional(z.string().min(16, "must be at least 16 characters long")),
  METRICS_PER_AGENT: optional(
    z.enum(["true", "false"], { error: "must be `true` or `false`" }),
  ).default("false"),
  OTEL_TRACES_EXPORTER: optional(
    z.enum(["none", "otlp"], { error: "must be `none` (no traces) or `otlp`" }),
  ).default("none"),
  OTEL_EXPORTER_OTLP_ENDPOINT: optional(
    z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
  ),
  OTEL_EXPORTER_OTLP_PROTOCOL: optional(
    z.enum(["http/protobuf", "http/json"], {
      error: "must be `http/protobuf` or `http/json` (gRPC is not offered)",
    }),
  ).default("http/protobuf"),
  OTEL_SERVICE_NAME: optional(z.string().min(1)).default("agent-service"),
  OTEL_BSP_SCHEDULE_DELAY: optional(
    z.coerce
      .number({ error: "must be a number of milliseconds" })
      .int("must be a whole number of milliseconds")
      .min(10, "must be 10 or more")
      .max(600_000, "must be at most 600,000"),
  ).default(5000),
  ADMIN_ADDRESSES: optional(z.string()).default(""),
  WORKER_ADDRESSES: optional(z.string()).default(""),
  SIWE_CHAIN_IDS: optional(z.string()).default(
    "1,10,56,97,137,8453,42161,80002,80084,84532,11155111",
  ),
  NONCE_RATE_LIMIT_RPM: quotaLimit(60, 1, 1_000_000),
  SIWE_MAX_AGE_S: optional(z.coerce.number().int().min(1).max(86_400)).default(600),
  SIWE_CLOCK_SKEW_S: optional(z.coerce.number().int().min(0).max(3600)).default(60),
  RPC_URL: optional(
    z.url({ protocol: /^(https?|wss?)$/, error: "must be an http(s) or ws(s) URL" }),
  ),
  PRIVY_APP_ID: optional(z.string().min(1)),
  PRIVY_VERIFICATION_KEY: optional(z.string().min(1)),
  PRIVY_REQUIRED: optional(
    z.enum(["true", "false"], { error: "must be `true` or `false`" }),
  ).default("false"),
  OIDC_ISSUER: optional(z.url({ protocol: /^https$/, error: "must be an https URL" })),
  OIDC_CLIENT_ID: optional(z.string().min(1)),
  OIDC_CLIENT_SECRET: optional(z.string().min(1)),
  OIDC_SCOPES: optional(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e ]+$/, "must be scopes")).default(
    "openid email profile",
  ),
  OIDC_ROLE_RULES: optional(z.string()).default(""),
  SCHEDULER: optional(z.enum(["on", "off"], { error: "must be `on` or `off`" })).default("on"),
  SCHEDULER_TICK_MS: optional(z.coerce.number().int().min(10).max(3_600_000)).default(1000),
  SCHEDULER_BATCH_SIZE: optional(z.coerce.number().int().min(1).max(10_000)).default(100),
  SCHEDULER_CONCURRENCY: optional(z.coerce.number().int().min(1).max(10_000)).default(16),
  SHUTDOWN_GRACE_MS: optional(z.coerce.number().int().min(0).max(600_000)).default(30_000),
  REQUEST_LOG_DAYS: optional(
    z.coerce
      .number({ error: "must be a whole number of days" })
      .int("must be a whole number of days")
      .min(0, "must be 0 (no request log) or more")
      .max(3650, "must be at most 3,650 (ten years)"),
  ).default(14),
  AUDIT_RETENTION_DAYS: optional(
    z.coerce
      .number({ error: "must be a whole number of days" })
      .int("must be a whole number of days")
      .min(0, "must be 0 (kept for ever) or more")
      .max(36500, "must be at most 36,500"),
  ).default(365),
  QUOTA_DEFAULT_MESSAGE_LIMIT_TOTAL: quotaLimit(null),
  QUOTA_DEFAULT_MESSAGE_LIMIT_MONTHLY: quotaLimit(10_000),
  QUOTA_DEFAULT_MESSAGE_LIMIT_DAILY: quotaLimit(1_000),
  QUOTA_DEFAULT_AUTONOMOUS_LIMIT_TOTAL: quotaLimit(null),
  QUOTA_DEFAULT_AUTONOMOUS_LIMIT_MONTHLY: quotaLimit(3_000),
  MCP_ALLOWED_HOSTS: optional(z.string()).default(""),
  MCP_TOOL_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(600_000)).default(15_000),
  MCP_RESULT_MAX_CHARS: optional(z.coerce.number().int().min(100).max(1_000_000)).default(10_000),
  TOOL_APPROVAL_WAIT_S: optional(
    z.coerce
      .number({ error: "must be a number of seconds" })
      .int("must be a whole number of seconds")
      .min(1, "must be 1 or more")
      .max(604_800, "must be at most 604,800 (7 days)"),
  ).default(3600),
  WEBHOOK_ALLOWED_HOSTS: optional(z.string()).default(""),
  WEBHOOK_RETRY_BASE_S: optional(
    z.coerce
      .number({ error: "must be a number of seconds" })
      .min(0.01, "must be 0.01 or more")
      .max(86_400, "must be at most 86,400"),
  ).default(5),
  WEBHOOK_RETRY_WINDOW_H: optional(
    z.coerce
      .number({ error: "must be a number of hours" })
      .min(0.0001, "must be 0.0001 or more")
      .max(720, "must be at most 720 (30 days)"),
  ).default(24),
  WEBHOOK_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(600_000)).default(10_000),
  WEBHOOK_POLL_MS: optional(z.coerce.number().int().min(10).max(3_600_000)).default(250),
  WEBHOOK_CONCURRENCY: optional(z.coerce.number().int().min(1).max(1000)).default(32),
  WEBHOOK_ENDPOINT_CONCURRENCY: optional(z.coerce.number().int().min(1).max(1000)).default(4),
  QUOTA_DEFAULT_TOKEN_LIMIT_TOTAL: quotaLimit(null),
  QUOTA_DEFAULT_TOKEN_LIMIT_MONTHLY: quotaLimit(null),
  QUOTA_DEFAULT_TOKEN_LIMIT_DAILY: quotaLimit(null),
  MODEL_PRICES: optional(
    z
      .string()
      .transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          ctx.addIssue({ code: "custom", message: "must be JSON" });
          return z.NEVER;
        }
      })
      .pipe(modelPricesSchema),
  ).default({}),
});

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Parses the environment; throws a ConfigError that names every wrong variable. */
export function parseConfig(env: Record<string, string | undefined>) {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const publicUrl = new URL(e.PUBLIC_URL ?? `http://localhost:${e.PORT}`);
  const issues = [
    ...listProblems(
      "ADMIN_ADDRESSES",
      e.ADMIN_ADDRESSES,
      (a) => /^0x[0-9a-fA-F]{40}$/.test(a),
      "is not a 0x address",
    ),
    ...listProblems(
      "WORKER_ADDRESSES",
      e.WORKER_ADDRESSES,
      (a) => /^0x[0-9a-fA-F]{40}$/.test(a),
      "is not a 0x address",
    ),
    ...listProblems(
      "SIWE_CHAIN_IDS",
      e.SIWE_CHAIN_IDS,
      (c) => /^[1-9]\d*$/.test(c),
      "is not a chain id",
    ),
  ];
  const hosts = parseAllowedHosts(e.MCP_ALLOWED_HOSTS);
  issues.push(...hosts.problems.map((problem) => `  MCP_ALLOWED_HOSTS: ${problem}`));
  const webhookHosts = parseAllowedHosts(e.WEBHOOK_ALLOWED_HOSTS);
  const modelHosts = parseAllowedHosts(e.MODEL_ALLOWED_HOSTS);
  issues.push(...modelHosts.problems.map((problem) => `  MODEL_ALLOWED_HOSTS: ${problem}`));
  issues.push(...webhookHosts.problems.map((problem) => `  WEBHOOK_ALLOWED_HOSTS: ${problem}`));
  if (e.WEB_CONCURRENCY !== undefined && e.WEB_CONCURRENCY > 1 && !e.DATABASE_URL) {
    issues.push(
      `  WEB_CONCURRENCY: ${e.WEB_CONCURRENCY} processes need DATABASE_URL: the embedded database (PGlite) belongs to one process. Set DATABASE_URL to a PostgreSQL server, or leave WEB_CONCURRENCY unset (1 on the embedded database).`,
    );
  }
  if (e.PRIVY_REQUIRED === "true" && !(e.PRIVY_APP_ID && e.PRIVY_VERIFICATION_KEY)) {
    issues.push("  PRIVY_REQUIRED: needs PRIVY_APP_ID and PRIVY_VERIFICATION_KEY");
  }
  const roleRules = parseRoleRules(e.OIDC_ROLE_RULES);
  issues.push(...roleRules.problems.map((problem) => `  OIDC_ROLE_RULES: ${problem}`));
  const oidcSet = [e.OIDC_ISSUER, e.OIDC_CLIENT_ID, e.OIDC_CLIENT_SECRET].filter(Boolean).length;
  if (oidcSet !== 0 && oidcSet !== 3)
    issues.push(
      "  OIDC_ISSUER: OIDC sign-in needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET",
    );
  if (!e.OIDC_SCOPES.split(" ").includes("openid"))
    issues.push("  OIDC_SCOPES: must include `openid`");
  if (issues.length > 0) throw new ConfigError(`Invalid configuration:\n${issues.join("\n")}`);
  return {
    port: e.PORT,
    host: e.HOST,
    webConcurrency: e.WEB_CONCURRENCY ?? (e.DATABASE_URL ? availableParallelism() : 1),
    /** `direct`: the server entry calls the route's handler; `nextjs`: Next.js's router does. */
    restRouting: e.REST_ROUTING,
    metricsToken: e.METRICS_TOKEN,
    /** OpenTelemetry traces; the exporter also reads the OTEL_EXPORTER_OTLP_* variables itself. */
    tracing: {
      exporter: e.OTEL_TRACES_EXPORTER,
      protocol: e.OTEL_EXPORTER_OTLP_PROTOCOL,
      serviceName: e.OTEL_SERVICE_NAME,
      scheduleDelayMs: e.OTEL_BSP_SCHEDULE_DELAY,
    },
    publicUrl: publicUrl.toString().replace(/\/+$/, ""),
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    /** `transaction`: a pooler such as PgBouncer may change server connections between transactions. */
    databasePoolMode: e.DATABASE_POOL_MODE,
    adminApiKey: e.ADMIN_API_KEY,
    llm: {
      /** Unset = the built-in `echo` provider. */
      baseUrl: e.LLM_BASE_URL,
      apiKey: e.LLM_API_KEY,
      /** For agents whose `model` is null. */
      defaultModel: e.LLM_MODEL,
      timeoutMs: e.LLM_TIMEOUT_MS,
      maxConcurrency: e.LLM_MAX_CONCURRENCY,
      maxRetries: e.LLM_MAX_RETRIES,
      maxOutputTokens: e.LLM_MAX_OUTPUT_TOKENS,
      /** Non-public addresses agents' model endpoints may be on (empty = none). */
      allowedHosts: modelHosts.rules,
      /** Failures in a row that open an endpoint's circuit, for every worker and instance. */
      circuitFailures: e.MODEL_CIRCUIT_FAILURES,
      /** How long an open circuit skips its endpoint before one call probes it. */
      circuitOpenMs: Math.round(e.MODEL_CIRCUIT_OPEN_S * 1000),
    },
    chat: {
      maxReplyChars: e.CHAT_MAX_REPLY_CHARS,
      historyMessages: e.CHAT_HISTORY_MESSAGES,
      historyMaxChars: e.CHAT_HISTORY_MAX_CHARS,
      defaultRateLimitRpm: e.CHAT_RATE_LIMIT_RPM,
      /** How long a stream whose client left waits to be resumed, and is kept once ended. */
      resumeMs: e.CHAT_RESUME_S * 1000,
      /** How many proxies' X-Forwarded-For entries to believe for the client address. */
      trustProxy: e.TRUST_PROXY,
    },
    completions: {
      /** Characters of all a completion's messages together; more is refused with 400. */
      maxInputChars: e.COMPLETIONS_MAX_INPUT_CHARS,
    },
    tools: {
      /** Non-public addresses MCP servers may be on (empty = none); public ones are free. */
      allowedHosts: hosts.rules,
      timeoutMs: e.MCP_TOOL_TIMEOUT_MS,
      maxResultChars: e.MCP_RESULT_MAX_CHARS,
      /** How long a tool call waits for an approval before its chat or run fails. */
      approvalWaitMs: e.TOOL_APPROVAL_WAIT_S * 1000,
    },
    webhooks: {
      /** Non-public addresses webhook endpoints may be on (empty = none); public ones are free. */
      allowedHosts: webhookHosts.rules,
      retryBaseMs: Math.round(e.WEBHOOK_RETRY_BASE_S * 1000),
      /** How long a delivery is retried, and an endpoint may fail before it is disabled. */
      retryWindowMs: Math.round(e.WEBHOOK_RETRY_WINDOW_H * 3_600_000),
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      pollMs: e.WEBHOOK_POLL_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      /** Attempts in flight to one endpoint, counted across every instance. */
      endpointConcurrency: e.WEBHOOK_ENDPOINT_CONCURRENCY,
    },
    siwe: {
      /** host[:port] of PUBLIC_URL: the only domain a message may name. */
      domain: publicUrl.host,
      scheme: publicUrl.protocol.replace(":", ""),
      baseUrl: publicUrl.toString().replace(/\/+$/, ""),
      chainIds: new Set(splitList(e.SIWE_CHAIN_IDS).map(Number)) as ReadonlySet<number>,
      maxAgeS: e.SIWE_MAX_AGE_S,
      clockSkewS: e.SIWE_CLOCK_SKEW_S,
      rpcUrl: e.RPC_URL,
      adminAddresses: lowerCaseSet(e.ADMIN_ADDRESSES),
      nonceRateLimitRpm: e.NONCE_RATE_LIMIT_RPM,
      /** Empty = any wallet may pick up unassigned deployments. */
      workerAddresses: lowerCaseSet(e.WORKER_ADDRESSES),
    },
    privy:
      e.PRIVY_APP_ID && e.PRIVY_VERIFICATION_KEY
        ? {
            appId: e.PRIVY_APP_ID,
            // A PEM in one environment line may carry its line breaks as literal \n.
            verificationKey: e.PRIVY_VERIFICATION_KEY.replaceAll("\\n", "\n"),
            required: e.PRIVY_REQUIRED === "true",
          }
        : undefined,
    /** Dashboard sign-in with an OpenID provider (server/auth/oidc.ts); unset = not offered. */
    oidc:
      e.OIDC_ISSUER && e.OIDC_CLIENT_ID && e.OIDC_CLIENT_SECRET
        ? {
            issuer: e.OIDC_ISSUER,
            clientId: e.OIDC_CLIENT_ID,
            clientSecret: e.OIDC_CLIENT_SECRET,
            scopes: e.OIDC_SCOPES.split(" ").filter(Boolean).join(" "),
            roleRules: roleRules.rules,
          }
        : undefined,
    scheduler: {
      /** Off on web instances when `npm run worker` runs the schedule elsewhere. */
      enabled: e.SCHEDULER === "on",
      tickMs: e.SCHEDULER_TICK_MS,
      batchSize: e.SCHEDULER_BATCH_SIZE,
      concurrency: e.SCHEDULER_CONCURRENCY,
      shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    },
    quotaDefaults: {
      messageLimitTotal: e.QUOTA_DEFAULT_MESSAGE_LIMIT_TOTAL,
      messageLimitMonthly: e.QUOTA_DEFAULT_MESSAGE_LIMIT_MONTHLY,
      messageLimitDaily: e.QUOTA_DEFAULT_MESSAGE_LIMIT_DAILY,
      autonomousLimitTotal: e.QUOTA_DEFAULT_AUTONOMOUS_LIMIT_TOTAL,
      autonomousLimitMonthly: e.QUOTA_DEFAULT_AUTONOMOUS_LIMIT_MONTHLY,
      tokenLimitTotal: e.QUOTA_DEFAULT_TOKEN_LIMIT_TOTAL,
      tokenLimitMonthly: e.QUOTA_DEFAULT_TOKEN_LIMIT_MONTHLY,
      tokenLimitDaily: e.QUOTA_DEFAULT_TOKEN_LIMIT_DAILY,
    },
    /** 0 = no request log: nothing is written, and what is there is deleted. */
    requestLogDays: e.REQUEST_LOG_DAYS,
    /** Days an audit entry is kept; 0 = for ever. */
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    modelPrices: e.MODEL_PRICES,
  };
}

export type Config = ReturnType<typeof parseConfig>;
export type QuotaLimits = Config["quotaDefaults"];
export type LlmConfig = Config["llm"];
export type ChatConfig = Config["chat"];
export type ToolsConfig = Config["tools"];
export type SchedulerConfig = Config["scheduler"];
export type SiweConfig = Config["siwe"];
export type WebhooksConfig = Config["webhooks"];
export type PrivyConfig = NonNullable<Config["privy"]>;
export type OidcConfig = NonNullable<Config["oidc"]>;

function lowerCaseSet(list: string): ReadonlySet<string> {
  return new Set(splitList(list).map((address) => address.toLowerCase()));
}

function splitList(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

function listProblems(
  name: string,
  value: string,
  valid: (item: string) => boolean,
  problem: string,
): string[] {
  return splitList(value)
    .filter((item) => !valid(item))
    .map((item) => `  ${name}: '${item}' ${problem}`);
}
