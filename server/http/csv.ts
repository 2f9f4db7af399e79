import { streamedResponse, textResponse } from "@/server/instance";
import { acceptedType } from "./request";

const preferredTable = acceptedType(["application/json", "text/csv"]);

/** Whether the client prefers CSV to JSON (`Accept: text/csv`); JSON when it names neither. */
export function wantsCsv(request: Request): boolean {
  return preferredTable(request) === "text/csv";
}

const csvHeaders = (filename: string) => ({
  "content-type": "text/csv; charset=utf-8; header=present",
  "content-disposition": `attachment; filename="${filename}"`,
  "cache-control": "no-store",
});

export function csvResponse(text: string, filename: string): Response {
  return textResponse(text, { headers: csvHeaders(filename) });
}

/** A CSV file written as its lines come (a long export, read a page at a time). */
export function csvStreamResponse(
  lines: AsyncGenerator<string, undefined, undefined>,
  filename: string,
): Response {
  return streamedResponse(
    { next: () => lines.next(), return: () => lines.return(undefined) },
    { headers: csvHeaders(filename) },
  );
}
