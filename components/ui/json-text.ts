/**
 * JSON typed into a field, read as an object, or what is wrong with it and where: the
 * browser's own messages say neither in the same words from one browser to the next, nor
 * always where (V8's "Unexpected token 'h'" gives no position), so the text is scanned here.
 */

export type JsonObjectText =
  | { ok: true; value: Record<string, unknown> | undefined }
  | { ok: false; problem: string };

/** Empty text is no object (undefined); anything else must be a JSON object. */
export function readJsonObject(text: string): JsonObjectText {
  if (text.trim() === "") return { ok: true, value: undefined };
  const at = jsonErrorAt(text);
  if (at !== undefined) return { ok: false, problem: whereWrong(text, at) };
  const value: unknown = JSON.parse(text);
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return {
      ok: false,
      problem: `must be a JSON object in braces, such as {"endpoint": "https://…"}, not ${kindOf(value)}.`,
    };
  return { ok: true, value: value as Record<string, unknown> };
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  if (typeof value === "string") return "a string";
  return `a ${typeof value}`;
}

function whereWrong(text: string, at: number): string {
  if (at >= text.length)
    return "is not valid JSON: it ends before every brace, bracket and quote is closed.";
  const { line, column } = lineAndColumn(text, at);
  const char = text[at] as string;
  const place = text.includes("\n")
    ? `at character ${at + 1} (line ${line}, column ${column})`
    : `at character ${at + 1}`;
  const hint = /[A-Za-z]/.test(char) ? ': text must be in "double quotes"' : "";
  return `is not valid JSON: unexpected “${char}” ${place}${hint}.`;
}

function lineAndColumn(text: string, at: number) {
  const before = text.slice(0, at).split("\n");
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/** The offset of the first character that makes `text` invalid JSON (its length: it ends too soon); undefined when valid. */
export function jsonErrorAt(text: string): number | undefined {
  let i = 0;
  const fail = (at: number): never => {
    throw at;
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i] as string)) i++;
  };
  const literal = (word: string) => {
    for (const char of word) if (text[i++] !== char) fail(i - 1);
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) fail(i);
      const char = text[i] as string;
      if (char === '"') {
        i++;
        return;
      }
      if (char < " ") fail(i);
      if (char === "\\") {
        const escaped = text[i + 1];
        if (escaped === undefined) fail(i + 1);
        if (escaped === "u") {
          for (let k = 2; k < 6; k++) if (!/[0-9a-fA-F]/.test(text[i + k] ?? "")) fail(i + k);
          i += 6;
        } else if ('"\\/bfnrt'.includes(escaped as string)) i += 2;
        else fail(i + 1);
      } else i++;
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match || match[0] === "-") fail(i + (match?.[0].length ?? 0));
    i += (match as RegExpExecArray)[0].length;
  };
  const value = (): void => {
    space();
    const char = text[i];
    if (char === undefined) {
      fail(i);
      return;
    }
    if (char === "{") {
      i++;
      space();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail(i);
        string();
        space();
        if (text[i] !== ":") fail(i);
        i++;
        value();
        space();
        if (text[i] === ",") i++;
        else if (text[i] === "}") {
          i++;
          return;
        } else fail(i);
      }
    }
    if (char === "[") {
      i++;
      space();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        space();
        if (text[i] === ",") i++;
        else if (text[i] === "]") {
          i++;
          return;
        } else fail(i);
      }
    }
    const words: Record<string, string> = { t: "true", f: "false", n: "null" };
    if (char === '"') string();
    else if (words[char]) literal(words[char]);
    else if (char === "-" || (char >= "0" && char <= "9")) number();
    else fail(i);
  };
  try {
    value();
    space();
    return i < text.length ? i : undefined;
  } catch (at) {
    if (typeof at === "number") return at;
    throw at;
  }
}
