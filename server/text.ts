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

/** A string the database can store. */
export const storableString = (error?: string) =>
  z.string(error ? { error } : undefined).refine(withoutNul, NUL_RULE);
