import type { z } from "zod";
import { AppError } from "@/server/errors";

/**
 * Keyset-pagination cursors. Opaque to clients (base64url of a small JSON object), so their
 * form can change; read back through a schema, so a forged one is a 400, never a 500.
 */
export function encodeCursor(position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

export function decodeCursor<T>(cursor: string, schema: z.ZodType<T>): T {
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    if (parsed.success) return parsed.data;
  } catch {
    // not JSON: refused below like any other cursor we did not give out
  }
  throw new AppError(
    "invalid_cursor",
    "The cursor is not one this service gave out; start again without it.",
    { errors: [{ field: "cursor", detail: "is not a cursor this service gave out" }] },
  );
}
