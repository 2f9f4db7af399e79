import { csvField } from "@/server/kit/csv";
import type { AuditEntry } from "./schema";

/**
 * GET /audit as CSV (Accept: text/csv): every entry the filters match, read a page at a time.
 * `before` and `after` are their JSON; a cell a spreadsheet would run as a formula is quoted
 * with a leading apostrophe (OWASP's advice for CSV injection).
 */

const COLUMNS = [
  "id",
  "at",
  "actor",
  "actor_via",
  "action",
  "target",
  "request_id",
  "client",
  "before",
  "after",
] as const;

type Page = { entries: AuditEntry[]; next_cursor: string | null };

export async function* auditCsv(
  first: Page,
  next: (cursor: string) => Promise<Page>,
): AsyncGenerator<string, undefined, undefined> {
  yield `${COLUMNS.join(",")}\r\n`;
  let page = first;
  for (;;) {
    if (page.entries.length > 0) yield page.entries.map(line).join("");
    if (page.next_cursor === null) return undefined;
    page = await next(page.next_cursor);
  }
}

function line(entry: AuditEntry): string {
  return `${COLUMNS.map((column) => cell(entry[column])).join(",")}\r\n`;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return csvField(/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
}
