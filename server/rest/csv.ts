import Negotiator from "negotiator";
import { textResponse } from "@/server/instance";

/** Whether the client prefers CSV to JSON (`Accept: text/csv`); JSON when it names neither. */
export function wantsCsv(request: Request): boolean {
  const accept = new Negotiator({ headers: { accept: request.headers.get("accept") ?? "*/*" } });
  return accept.mediaType(["application/json", "text/csv"]) === "text/csv";
}

/** A CSV file as the answer, to be saved under `filename`. */
export function csvResponse(text: string, filename: string): Response {
  return textResponse(text, {
    headers: {
      "content-type": "text/csv; charset=utf-8; header=present",
      "content-disposition": `attachment; filename="${filename}"`,
      "cache-control": "no-store",
    },
  });
}
