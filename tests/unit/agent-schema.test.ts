import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { agentInputSchema, listAgentsInputSchema } from "@/server/agents";
import { problemFromError, validationProblem } from "@/server/frame/errors";
import { aidSchema, RESERVED_AIDS } from "@/server/kit/agent-id";
import { OPERATIONS } from "@/server/rest";

const parseAid = (aid: unknown) => aidSchema.safeParse(aid).success;

describe("agent IDs", () => {
  it("accepts a lowercase letter then lowercase letters, digits and hyphens, 2 to 67 long", () => {
    for (const ok of ["ab", "a1", "support-bot", "x-1-2-3", `a${"b".repeat(66)}`])
      expect(parseAid(ok), ok).toBe(true);
  });

  it("refuses everything else", () => {
    for (const bad of [
      "a",
      "",
      "1abc",
      "-abc",
      "Abc",
      "ab_c",
      "ab c",
      "ab.c",
      "héllo",
      `a${"b".repeat(67)}`,
      12,
      null,
    ]) {
      expect(parseAid(bad), String(bad)).toBe(false);
    }
  });

  it("refuses as an aid every first path segment the service serves, today's and the app's", () => {
    const segments = new Set([
      ...OPERATIONS.map((operation) => operation.path.split("/")[1] as string),
      ...readdirSync(path.resolve(import.meta.dirname, "../../app")),
    ]);
    const taken = [...segments].filter((segment) => !segment.startsWith("[") && parseAid(segment));
    expect(taken).toEqual([]);
    expect(segments.has("webhooks")).toBe(true);
  });

  it("refuses every reserved top-level path", () => {
    for (const reserved of ["health", "agents", "api", "dashboard", "v1", "login"]) {
      expect(RESERVED_AIDS.has(reserved)).toBe(true);
      expect(parseAid(reserved), reserved).toBe(false);
    }
  });
});

describe("the agent input schema", () => {
  it("takes `id` as an alias of `aid`", () => {
    expect(agentInputSchema.parse({ id: "helper" })).toEqual({ aid: "helper" });
    expect(agentInputSchema.parse({ aid: "helper", id: "helper" })).toEqual({ aid: "helper" });
  });

  it("refuses an aid and an id that differ, and a body with neither", () => {
    expect(agentInputSchema.safeParse({ aid: "one", id: "two" }).success).toBe(false);
    expect(agentInputSchema.safeParse({ name: "x" }).success).toBe(false);
  });

  it("reports the aid problem as 'Invalid agent ID format'", () => {
    const result = agentInputSchema.safeParse({ aid: "Bad ID" });
    if (result.success) throw new Error("expected a failure");
    const problem = validationProblem(result.error);
    expect(problem).toMatchObject({ status: 400, code: "invalid_agent_id" });
    expect(problem.detail).toMatch(/^Invalid agent ID format: /);
  });

  it("gives one entry per invalid field, unknown fields included", () => {
    const result = agentInputSchema.safeParse({
      aid: "good",
      temperature: 3,
      autonomous_minutes: 1.5,
      quota: { message_limit_daily: -1, messages: 3 },
      colour: "red",
    });
    if (result.success) throw new Error("expected a failure");
    const problem = validationProblem(result.error);
    expect(problem.code).toBe("validation_failed");
    expect(problem.errors?.map((e) => e.field).sort()).toEqual(
      [
        "autonomous_minutes",
        "colour",
        "quota.message_limit_daily",
        "quota.messages",
        "temperature",
      ].sort(),
    );
    expect(problem.detail).toContain("temperature must be a number from 0 to 2");
  });

  it("bounds the interval to whole minutes from 1 to 525,600", () => {
    const minutes = (m: unknown) =>
      agentInputSchema.safeParse({ aid: "ok", autonomous_minutes: m }).success;
    expect([1, 60, 525_600].map(minutes)).toEqual([true, true, true]);
    expect([0, -5, 525_601, 2.5, "5", null].map(minutes)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it("keeps null (clear) apart from absent (keep) for fields that may be empty", () => {
    expect(
      agentInputSchema.parse({ aid: "ok", prompt: null, quota: { message_limit_total: null } }),
    ).toEqual({
      aid: "ok",
      prompt: null,
      quota: { message_limit_total: null },
    });
    expect(agentInputSchema.safeParse({ aid: "ok", name: null }).success).toBe(false);
    expect(agentInputSchema.safeParse({ aid: "ok", prompt: "  " }).success).toBe(false);
  });
});

describe("listing parameters", () => {
  it("defaults the limit to 100 and reads numbers from query strings", () => {
    expect(listAgentsInputSchema.parse({})).toEqual({ limit: 100 });
    expect(listAgentsInputSchema.parse({ limit: "25" }).limit).toBe(25);
  });

  it("refuses limits outside 1 to 1000 and unknown parameters", () => {
    for (const limit of ["0", "1001", "abc", "2.5", ""]) {
      expect(listAgentsInputSchema.safeParse({ limit }).success, limit).toBe(false);
    }
    expect(listAgentsInputSchema.safeParse({ page: "2" }).success).toBe(false);
  });
});

describe("unknown errors", () => {
  it("become a 500 whose message does not leak", () => {
    const problem = problemFromError(new Error("password=hunter2 at db.internal"));
    expect(problem).toMatchObject({ status: 500, code: "internal_error" });
    expect(JSON.stringify(problem)).not.toContain("hunter2");
  });

  it("a database that cannot be reached is a 503, not a 500", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
      code: "ECONNREFUSED",
    });
    expect(problemFromError(refused)).toMatchObject({
      status: 503,
      code: "database_unavailable",
      retry_after_s: 5,
    });
  });
});
