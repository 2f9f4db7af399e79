import { describe, expect, it } from "vitest";
import { newAgentKey, parseAgentKey, presentedKey } from "@/server/agent-keys";
import { callerOf } from "@/server/callers";

/** Which bearer tokens present an agent key, and who the caller of a chat then is (issue 23). */
describe("agent keys as bearer tokens", () => {
  const { key } = newAgentKey();

  it("presents a key for every token that starts with ak_, parsed or not", () => {
    expect(presentedKey(key)).toEqual(parseAgentKey(key));
    for (const damaged of [`${key}x`, key.slice(0, -1), key.slice(0, 29), "ak_"]) {
      const presented = presentedKey(damaged);
      expect(presented, damaged).toBeDefined();
      // No stored key has an empty id: the chat's statement finds none for it.
      expect(presented?.id, damaged).toBe("");
    }
    expect(presentedKey("test-admin-key-0123456789abcdef")).toBeUndefined();
    expect(presentedKey("AK_not-a-prefix")).toBeUndefined();
  });

  it("makes a damaged key a key caller, unless the token was the admin key", () => {
    const client = "0123456789abcdef";
    expect(callerOf({ session: null, bearer: "ak_", client })).toEqual({
      kind: "key",
      key: { id: "", secretHash: "" },
    });
    // An ADMIN_API_KEY may start with ak_: createContext has made its session the admin's.
    expect(
      callerOf({
        session: { role: "owner", via: "api_key" },
        bearer: "ak_admin-0123456789",
        client,
      }),
    ).toEqual({ kind: "admin" });
    expect(callerOf({ session: null, bearer: "wrong-admin-key-0123", client })).toEqual({
      kind: "anonymous",
      addressHash: client,
    });
  });
});
