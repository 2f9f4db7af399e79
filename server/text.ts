import { z } from "zod";

/**
 * PostgreSQL text (and jsonb) cannot hold the NUL character (U+0000). Every schema whose
 * strings reach the database refuses it, so the client gets a 400 that says so rather than the
 * database failing.
 */
export const NUL_RULE = "must not contain the NUL character (U+0000)";

export const withoutNul = (value: string): boolean => !value.includes("\u0000");

/** A JSON value whose strings, keys included, are all storable. */
export const jsonWithoutNul = (value: unknown): boolean =>
  !JSON.stringify(value ?? null).includes("\\u0000");

/**
 * Nor can jsonb hold half of a UTF-16 surrogate pair: JSON.stringify writes one as an escape
 * (`"\ud800"`), which PostgreSQL refuses. (In a text column it silently becomes U+FFFD.)
 */
export const LONE_SURROGATE_RULE =
  "must not contain half of a surrogate pair (U+D800 to U+DFFF without its other half)";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const withoutLoneSurrogate = (value: string): boolean => !LONE_SURROGATE.test(value);

/** The escape JSON.stringify writes for a lone surrogate, not preceded by an escaped backslash. */
const LONE_SURROGATE_ESCAPE = /(?:^|[^\\])(?:\\\\)*\\ud[89a-f][0-9a-f]{2}/;

/** A JSON value none of whose strings, keys included, holds a lone surrogate. */
export const jsonWithoutLoneSurrogate = (value: unknown): boolean =>
  !LONE_SURROGATE_ESCAPE.test(JSON.stringify(value ?? null));

/** A string the database can store, in a text column or in jsonb. */
export const storableString = (error?: string) =>
  z
    .string(error ? { error } : undefined)
    .refine(withoutNul, NUL_RULE)
    .refine(withoutLoneSurrogate, LONE_SURROGATE_RULE);
