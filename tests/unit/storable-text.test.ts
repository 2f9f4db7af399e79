import { describe, expect, it } from "vitest";
import { cutText, storableJson, storableJsonText, storableText } from "@/server/kit/text";
import { capText } from "@/server/tools";

describe("storableText", () => {
  it("removes NUL", () => {
    expect(storableText("a\u0000b\u0000")).toBe("ab");
  });

  it("replaces a lone high surrogate, at the end or before another character", () => {
    expect(storableText("a\ud83d")).toBe("a\ufffd");
    expect(storableText("\ud83db")).toBe("\ufffdb");
  });

  it("replaces a lone low surrogate, at the start or after another character", () => {
    expect(storableText("\ude00a")).toBe("\ufffda");
    expect(storableText("a\ude00")).toBe("a\ufffd");
    // Two halves in the wrong order are two lone halves.
    expect(storableText("\ude00\ud83d")).toBe("\ufffd\ufffd");
  });

  it("keeps a valid pair, even one a NUL stood between", () => {
    expect(storableText("😀 ok")).toBe("😀 ok");
    expect(storableText("\ud83d\u0000\ude00")).toBe("😀");
  });

  it("gives clean text back as it is", () => {
    const clean = `clean ${"é😀".repeat(100)}`;
    expect(storableText(clean)).toBe(clean);
    expect(storableText("")).toBe("");
  });
});

describe("storableJson and storableJsonText", () => {
  it("makes every string of a value storable, keys included", () => {
    expect(storableJson({ "k\u0000": ["v\ud800", 1, null, { n: "\u0000" }], ok: true })).toEqual({
      k: ["v\ufffd", 1, null, { n: "" }],
      ok: true,
    });
  });

  it("writes JSON escapes of a NUL or a lone surrogate again without them", () => {
    const text = '{"q": "a\\u0000b\\ud800", "e": "\\ud83d\\ude00"}';
    expect(JSON.parse(storableJsonText(text))).toEqual({ q: "ab\ufffd", e: "😀" });
    // Clean JSON and text that is not JSON are left as they are (but made storable as text).
    expect(storableJsonText('{"q": "\\u00e9"}')).toBe('{"q": "\\u00e9"}');
    expect(storableJsonText("not json \\u0000 \u0000")).toBe("not json \\u0000 ");
  });
});

describe("cutText", () => {
  it("cuts at the count, or before a surrogate pair the count would split", () => {
    expect(cutText("abcdef", 3)).toBe("abc");
    expect(cutText("ab😀cd", 3)).toBe("ab");
    expect(cutText("ab😀cd", 4)).toBe("ab😀");
    expect(cutText("ab😀cd", 2)).toBe("ab");
    expect(cutText("😀", 1)).toBe("");
    expect(cutText("abc", 0)).toBe("");
    expect(cutText("abc", 5)).toBe("abc");
  });

  it("never leaves half a pair, wherever it cuts", () => {
    const text = "a😀😀b😀".repeat(3);
    for (let max = 0; max <= text.length; max++) {
      const cut = cutText(text, max);
      expect(cut.isWellFormed()).toBe(true);
      expect(text.startsWith(cut)).toBe(true);
      expect(max - cut.length).toBeLessThanOrEqual(1);
    }
  });

  it("is how a tool's result is cut, which says how much is shown", () => {
    expect(capText(`a\u0000${"x".repeat(8)}😀b`, 10)).toBe(
      `a${"x".repeat(8)}\n[cut: 12 characters, the first 9 shown]`,
    );
  });
});
