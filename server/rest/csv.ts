import Negotiator from "negotiator";

/** Whether the client prefers CSV to JSON (`Accept: text/csv`); JSON when it names neither. */
export function wantsCsv(request: Request): boolean {
  const accept = new Negotiator({ headers: { accept: request.headers.get("accept") ?? "*/*" } });
  return accept.mediaType(["application/json", "text/csv"]) === "text/csv";
}

type Cell = string | number | null;

/** RFC 4180 text: a header line, then one line per row, CRLF line ends, quoted where needed. */
export function csvResponse(
  columns: readonly string[],
  rows: readonly Record<string, Cell>[],
  filename: string,
): Response {
  const lines = [columns.map(cell), ...rows.map((row) => columns.map((c) => cell(row[c] ?? null)))];
  return new Response(`${lines.map((line) => line.join(",")).join("\r\n")}\r\n`, {
    headers: {
      "content-type": "text/csv; charset=utf-8; header=present",
      "content-disposition": `attachment; filename="${filename}"`,
      "cache-control": "no-store",
    },
  });
}

function cell(value: Cell): string {
  if (value === null) return "";
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
