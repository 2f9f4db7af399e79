import { describe, expect, it } from "vitest";
import { changesOf, compactJson, targetHref } from "@/components/audit/changes";

/** What the audit log's "Changes" shows of an entry's before and after, and where targets link. */

describe("an audit entry's changes", () => {
  it("lists only the top-level fields that differ, whatever the order of keys", () => {
    const before = { aid: "a", rate_limit_rpm: 30, quota: { daily: 1, monthly: 2 }, gone: true };
    const after = { quota: { monthly: 2, daily: 1 }, rate_limit_rpm: 90, aid: "a", added: [1] };
    expect(changesOf(before, after)).toEqual({
      kind: "fields",
      fields: [
        { field: "rate_limit_rpm", before: 30, after: 90 },
        { field: "gone", before: true, after: undefined },
        { field: "added", before: undefined, after: [1] },
      ],
    });
    expect(compactJson(undefined)).toBe("absent");
    expect(compactJson({ a: [1, null] })).toBe('{"a":[1,null]}');
  });

  it("gives the whole object when only one side exists, and says when neither does", () => {
    expect(changesOf(null, { aid: "a" })).toEqual({ kind: "created", value: { aid: "a" } });
    expect(changesOf({ aid: "a" }, null)).toEqual({ kind: "deleted", value: { aid: "a" } });
    expect(changesOf(null, undefined)).toEqual({ kind: "none" });
    expect(changesOf({ a: 1 }, { a: 1 })).toEqual({ kind: "fields", fields: [] });
  });

  it("links a target to its page", () => {
    expect(targetHref("agent:support-bot")).toBe("/dashboard/agents/support-bot");
    expect(targetHref("agent_key:support-bot/ak_7Qx2")).toBe("/dashboard/agents/support-bot");
    expect(targetHref("run:support-bot/42")).toBe("/dashboard/agents/support-bot");
    expect(targetHref("tool_call:support-bot/0b9c")).toBe("/dashboard/agents/support-bot");
    expect(targetHref("webhook:wh_1")).toBe("/dashboard/webhooks/wh_1");
    expect(targetHref("price:gpt-4o")).toBe("/dashboard/prices");
    expect(targetHref("something")).toBeUndefined();
  });
});
