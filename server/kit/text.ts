import { z } from "zod";

/**
 * PostgreSQL text and jsonb cannot hold NUL (U+0000): every schema whose strings reach the
 * database refuses it, so the client gets a 400 rather than the database failing.
 */
export const NUL_RULE = "must not contain the NUL character (U+0000)";

export const withoutNul = (value: string): boolean => !value.includes("\u0000");

export const jsonWithoutNul = (value: unknown): boolean =>
  !JSON.stringify(value ?? null).includes("\\u0000");

/**
 * Nor can jsonb hold half of a UTF-16 surrogate pair: JSON.stringify writes one as an escape
 * (`"\ud800"`), which PostgreSQL refuses. (In a text column it silently becomes U+FFFD.)
 */
export const LONE_SURROGATE_RULE =
  "must not contain half of a surrogate pair (U+D800 to U+DFFF without its other half)";

export const withoutLoneSurrogate = (value: string): boolean => value.isWellFormed();

/** The escape JSON.stringify writes for a lone surrogate, not preceded by an escaped backslash. */
const LONE_SURROGATE_ESCAPE = /(?:^|[^\\])(?:\\\\)*\\ud[89a-f][0-9a-f]{2}/;

export const jsonWithoutLoneSurrogate = (value: unknown): boolean =>
  !LONE_SURROGATE_ESCAPE.test(JSON.stringify(value ?? null));

export const storableString = (error?: string) =>
  z
    .string(error ? { error } : undefined)
    .refine(withoutNul, NUL_RULE)
    .refine(withoutLoneSurrogate, LONE_SURROGATE_RULE);

/**
 * Text from outside (what a model or a tool sends) as the database can store it: NUL removed,
 * each lone surrogate replaced by U+FFFD. Clean text comes back uncopied after two native scans,
 * as every streamed delta passes through this.
 */
export function storableText(text: string): string {
  if (text.isWellFormed() && !text.includes("\u0000")) return text;
  return text.replaceAll("\u0000", "").toWellFormed();
}

export function storableJson(value: unknown): unknown {
  if (typeof value === "string") return storableText(value);
  if (Array.isArray(value)) return value.map(storableJson);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [storableText(key), storableJson(item)]),
    );
  return value;
}

/** An escape JSON decodes to a NUL or to a surrogate (maybe lone); false positives cost a parse. */
const SUSPECT_ESCAPE = /\\u(?:0000|d[89a-f])/i;

/**
 * JSON text from outside (a tool call's arguments) made storable, with escapes of a NUL or a lone
 * surrogate rewritten so what it parses to is storable too; non-JSON is made storable as text.
 */
export function storableJsonText(text: string): string {
  const storable = storableText(text);
  if (!SUSPECT_ESCAPE.test(storable)) return storable;
  try {
    return JSON.stringify(storableJson(JSON.parse(storable)));
  } catch {
    return storable;
  }
}

/** At most `maxChars` code units, one fewer when the cut would split a surrogate pair. */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars <= 0) return "";
  const splitsPair =
    isHighSurrogate(text.charCodeAt(maxChars - 1)) && isLowSurrogate(text.charCodeAt(maxChars));
  return text.slice(0, splitsPair ? maxChars - 1 : maxChars);
}

export const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
