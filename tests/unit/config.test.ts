import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "@/server/frame/config";

describe("configuration", () => {
  it("runs with no variables at all: embedded database, generated key, default quotas", () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      port: 3000,
      publicUrl: "http://localhost:3000",
      dataDir: "./.data",
      databaseUrl: undefined,
      adminApiKey: undefined,
      quotaDefaults: {
        messageLimitTotal: null,
        messageLimitMonthly: 10_000,
        messageLimitDaily: 1_000,
        autonomousLimitTotal: null,
        autonomousLimitMonthly: 3_000,
      },
    });
  });

  it("listens on loopback unless HOST says otherwise, so a first start is not on the network", () => {
    expect(parseConfig({}).host).toBe("127.0.0.1");
    expect(parseConfig({ HOST: "" }).host).toBe("127.0.0.1");
    expect(parseConfig({ HOST: "0.0.0.0" }).host).toBe("0.0.0.0");
  });

  it("treats empty values as unset, as .env files write them", () => {
    expect(
      parseConfig({ DATABASE_URL: "", PORT: "", QUOTA_DEFAULT_MESSAGE_LIMIT_DAILY: "" }),
    ).toMatchObject({
      databaseUrl: undefined,
      port: 3000,
      quotaDefaults: { messageLimitDaily: 1_000 },
    });
  });

  it("reads quota defaults as whole numbers or `unlimited`", () => {
    const config = parseConfig({
      QUOTA_DEFAULT_MESSAGE_LIMIT_DAILY: "unlimited",
      QUOTA_DEFAULT_MESSAGE_LIMIT_TOTAL: "0",
    });
    expect(config.quotaDefaults).toMatchObject({ messageLimitDaily: null, messageLimitTotal: 0 });
  });

  it("reads MODEL_PRICES as JSON prices per million tokens, and refuses a malformed one", () => {
    expect(
      parseConfig({ MODEL_PRICES: '{"gpt-4o-mini":{"input":0.15,"output":0.6}}' }).modelPrices,
    ).toEqual({ "gpt-4o-mini": { input: 0.15, output: 0.6 } });
    expect(parseConfig({}).modelPrices).toEqual({});
    for (const wrong of ["{", '{"m":{"input":-1,"output":0}}', '{"m":{"input":1}}', "[1]"])
      expect(() => parseConfig({ MODEL_PRICES: wrong })).toThrow(/MODEL_PRICES/);
  });

  it("derives the public URL from the port, without a trailing slash", () => {
    expect(parseConfig({ PORT: "8080" }).publicUrl).toBe("http://localhost:8080");
    expect(parseConfig({ PUBLIC_URL: "https://agents.example.com/" }).publicUrl).toBe(
      "https://agents.example.com",
    );
  });

  it("refuses wrong values with a message that names each variable", () => {
    const attempt = () =>
      parseConfig({
        PORT: "eighty",
        DATABASE_URL: "mysql://x",
        ADMIN_API_KEY: "short",
        QUOTA_DEFAULT_MESSAGE_LIMIT_DAILY: "-3",
      });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const message = (error as Error).message;
      for (const name of [
        "PORT",
        "DATABASE_URL",
        "ADMIN_API_KEY",
        "QUOTA_DEFAULT_MESSAGE_LIMIT_DAILY",
      ]) {
        expect(message).toContain(name);
      }
    }
  });
});
