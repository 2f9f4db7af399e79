import { z } from "zod";

/**
 * Environment configuration, validated once at start-up. Every variable is optional: the
 * defaults run the whole service offline on one machine with the embedded database.
 */

// `FOO=` in a .env file means "not set", not "set to the empty string".
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema.optional());

/** A quota limit: a whole number of messages or runs, or `unlimited`. */
const quotaLimit = (fallback: number | null) =>
  z.preprocess(
    (value) => (value === "" || value === undefined ? fallback : value),
    z.union([
      z.literal("unlimited").transform(() => null),
      z.null(),
      z.coerce
        .number({ error: "must be a whole number or `unlimited`" })
        .int("must be a whole number or `unlimited`")
        .min(0, "must be 0 or more"),
    ]),
  );

export const envSchema = z.object({
  PORT: optional(z.coerce.number().int().min(1).max(65_535)).default(3000),
  PUBLIC_URL: optional(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" })),
  DATA_DIR: optional(z.string()).default("./.data"),
  DATABASE_URL: optional(
    z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL"),
  ),
  ADMIN_API_KEY: optional(z.string().min(16, "must be at least 16 characters long")),
  LLM_BASE_URL: optional(z.url({ protocol: /^https?$/, error: "must be an http(s) URL" })),
  LLM_API_KEY: optional(z.string()),
  LLM_MODEL: optional(z.string().min(1)).default("gpt-4o-mini"),
  LLM_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(600_000)).default(60_000),
  LLM_MAX_CONCURRENCY: optional(z.coerce.number().int().min(1).max(10_000)).default(32),
  LLM_MAX_RETRIES: optional(z.coerce.number().int().min(0).max(10)).default(2),
  LLM_MAX_OUTPUT_TOKENS: optional(z.coerce.number().int().min(1).max(1_000_000)).default(1024),
  CHAT_MAX_REPLY_CHARS: optional(z.coerce.number().int().min(1).max(1_000_000)).default(16_000),
  CHAT_HISTORY_MESSAGES: optional(z.coerce.number().int().min(0).max(1000)).default(20),
  CHAT_HISTORY_MAX_CHARS: optional(z.coerce.number().int().min(0).max(10_000_000)).default(24_000),
  ADMIN_ADDRESSES: optional(z.string()).default(""),
  SIWE_CHAIN_IDS: optional(z.string()).default(
    "1,10,56,97,137,8453,42161,80002,80084,84532,11155111",
  ),
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
  SCHEDULER: optional(z.enum(["on", "off"], { error: "must be `on` or `off`" })).default("on"),
  SCHEDULER_TICK_MS: optional(z.coerce.number().int().min(10).max(3_600_000)).default(1000),
  SCHEDULER_BATCH_SIZE: optional(z.coerce.number().int().min(1).max(10_000)).default(100),
  SCHEDULER_CONCURRENCY: optional(z.coerce.number().int().min(1).max(10_000)).default(16),
  SHUTDOWN_GRACE_MS: optional(z.coerce.number().int().min(0).max(600_000)).default(30_000),
  QUOTA_DEFAULT_MESSAGE_LIMIT_TOTAL: quotaLimit(null),
  QUOTA_DEFAULT_MESSAGE_LIMIT_MONTHLY: quotaLimit(10_000),
  QUOTA_DEFAULT_MESSAGE_LIMIT_DAILY: quotaLimit(1_000),
  QUOTA_DEFAULT_AUTONOMOUS_LIMIT_TOTAL: quotaLimit(null),
  QUOTA_DEFAULT_AUTONOMOUS_LIMIT_MONTHLY: quotaLimit(3_000),
});

export type QuotaLimits = {
  messageLimitTotal: number | null;
  messageLimitMonthly: number | null;
  messageLimitDaily: number | null;
  autonomousLimitTotal: number | null;
  autonomousLimitMonthly: number | null;
};

/** The model provider: an OpenAI-compatible endpoint, or the built-in echo when none is set. */
export type LlmConfig = {
  /** Unset = the built-in `echo` provider. */
  baseUrl: string | undefined;
  apiKey: string | undefined;
  /** Used for agents whose `model` is null. */
  defaultModel: string;
  timeoutMs: number;
  maxConcurrency: number;
  maxRetries: number;
  maxOutputTokens: number;
};

export type ChatConfig = {
  /** Replies are cut at this many characters, whatever the model sends. */
  maxReplyChars: number;
  /** At most this many earlier messages of the thread go to the model... */
  historyMessages: number;
  /** ...and at most this many characters of them (the oldest are dropped first). */
  historyMaxChars: number;
};

export type SchedulerConfig = {
  /** Off on web instances when `npm run worker` runs the schedule elsewhere. */
  enabled: boolean;
  tickMs: number;
  /** Due agents claimed per transaction. */
  batchSize: number;
  /** Autonomous runs at once in this process (they also share the model slots). */
  concurrency: number;
  /** On SIGTERM: how long runs and model calls in flight may take to finish. */
  shutdownGraceMs: number;
};

export type SiweConfig = {
  /** host[:port] of PUBLIC_URL: the only domain a message may name. */
  domain: string;
  /** http or https, from PUBLIC_URL: a message that names a scheme must name this one. */
  scheme: string;
  /** A message's URI must be this base URL or below it. */
  baseUrl: string;
  chainIds: ReadonlySet<number>;
  maxAgeS: number;
  clockSkewS: number;
  rpcUrl: string | undefined;
  /** Lower-case wallet addresses with admin rights (dashboard, any deployment). */
  adminAddresses: ReadonlySet<string>;
};

export type PrivyConfig = {
  appId: string;
  /** SPKI PEM of Privy's ES256 verification key. */
  verificationKey: string;
  required: boolean;
};

export type Config = {
  port: number;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  adminApiKey: string | undefined;
  quotaDefaults: QuotaLimits;
  llm: LlmConfig;
  chat: ChatConfig;
  scheduler: SchedulerConfig;
  siwe: SiweConfig;
  /** Set when both PRIVY_APP_ID and PRIVY_VERIFICATION_KEY are. */
  privy: PrivyConfig | undefined;
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Parses the environment; throws a ConfigError that names every wrong variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
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
      "SIWE_CHAIN_IDS",
      e.SIWE_CHAIN_IDS,
      (c) => /^[1-9]\d*$/.test(c),
      "is not a chain id",
    ),
  ];
  if (e.PRIVY_REQUIRED === "true" && !(e.PRIVY_APP_ID && e.PRIVY_VERIFICATION_KEY)) {
    issues.push("  PRIVY_REQUIRED: needs PRIVY_APP_ID and PRIVY_VERIFICATION_KEY");
  }
  if (issues.length > 0) throw new ConfigError(`Invalid configuration:\n${issues.join("\n")}`);
  return {
    port: e.PORT,
    publicUrl: publicUrl.toString().replace(/\/+$/, ""),
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    adminApiKey: e.ADMIN_API_KEY,
    llm: {
      baseUrl: e.LLM_BASE_URL,
      apiKey: e.LLM_API_KEY,
      defaultModel: e.LLM_MODEL,
      timeoutMs: e.LLM_TIMEOUT_MS,
      maxConcurrency: e.LLM_MAX_CONCURRENCY,
      maxRetries: e.LLM_MAX_RETRIES,
      maxOutputTokens: e.LLM_MAX_OUTPUT_TOKENS,
    },
    chat: {
      maxReplyChars: e.CHAT_MAX_REPLY_CHARS,
      historyMessages: e.CHAT_HISTORY_MESSAGES,
      historyMaxChars: e.CHAT_HISTORY_MAX_CHARS,
    },
    siwe: {
      domain: publicUrl.host,
      scheme: publicUrl.protocol.replace(":", ""),
      baseUrl: publicUrl.toString().replace(/\/+$/, ""),
      chainIds: new Set(splitList(e.SIWE_CHAIN_IDS).map(Number)),
      maxAgeS: e.SIWE_MAX_AGE_S,
      clockSkewS: e.SIWE_CLOCK_SKEW_S,
      rpcUrl: e.RPC_URL,
      adminAddresses: new Set(splitList(e.ADMIN_ADDRESSES).map((a) => a.toLowerCase())),
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
    scheduler: {
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
    },
  };
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
