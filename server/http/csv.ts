import { textResponse } from "@/server/instance";
import { acceptedType } from "./request";

const preferredTable = acceptedType(["application/json", "text/csv"]);

/** Whether the client prefers CSV to JSON (`Accept: text/csv`); JSON when it names neither. */
export function wantsCsv(request: Request): boolean {
  return preferredTable(request) === "text/csv";
}

export function csvResponse(text: string, filename: string): Response {
  return textResponse(text, {
    headers: {
      "content-type": "text/csv; charset=utf-8; header=present",
      "content-disposition": `attachment; filename="${filename}"`,
      "cache-control": "no-store",
    },
  });
}
