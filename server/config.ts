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

export type Config = {
  port: number;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  adminApiKey: string | undefined;
  quotaDefaults: QuotaLimits;
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
  return {
    port: e.PORT,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    adminApiKey: e.ADMIN_API_KEY,
    quotaDefaults: {
      messageLimitTotal: e.QUOTA_DEFAULT_MESSAGE_LIMIT_TOTAL,
      messageLimitMonthly: e.QUOTA_DEFAULT_MESSAGE_LIMIT_MONTHLY,
      messageLimitDaily: e.QUOTA_DEFAULT_MESSAGE_LIMIT_DAILY,
      autonomousLimitTotal: e.QUOTA_DEFAULT_AUTONOMOUS_LIMIT_TOTAL,
      autonomousLimitMonthly: e.QUOTA_DEFAULT_AUTONOMOUS_LIMIT_MONTHLY,
    },
  };
}
