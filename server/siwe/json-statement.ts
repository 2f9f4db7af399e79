import { AppError } from "@/server/frame/errors";

/**
 * The JSON object a status message carries as its statement, read strictly: size and depth are
 * bounded by a scan before parsing, so deeply nested input never reaches the parser, and no key
 * may come twice in one object (JSON.parse keeps the last, so a signer's tool and this service
 * could read two different changes from one signed text).
 */

export const MAX_STATEMENT_CHARS = 16 * 1024;
export const MAX_DEPTH = 32;

const invalid = (detail: string) => new AppError("invalid_statement", detail);

export function parseJsonStatement(text: string): unknown {
  if (text.length > MAX_STATEMENT_CHARS) {
    throw invalid(
      `The message's statement is ${text.length.toLocaleString("en")} characters long; at most ${MAX_STATEMENT_CHARS.toLocaleString("en")} are accepted.`,
    );
  }
  checkShape(text);
  try {
    return JSON.parse(text);
  } catch {
    throw invalid(
      "The message's statement is not JSON; it must be a JSON object with request_id and status.",
    );
  }
}

/** Depth and duplicate keys, in one pass over the text (strings skipped with their escapes). */
function checkShape(text: string): void {
  // One set of keys per open object; null for an open array.
  const open: (Set<string> | null)[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "{" || char === "[") {
      if (open.length >= MAX_DEPTH)
        throw invalid(`The message's statement nests deeper than ${MAX_DEPTH} levels.`);
      open.push(char === "{" ? new Set() : null);
    } else if (char === "}" || char === "]") {
      open.pop();
    } else if (char === '"') {
      const end = stringEnd(text, i);
      const keys = open.at(-1);
      // A string in an object followed by a colon is a key.
      if (keys && /^\s*:/.test(text.slice(end + 1, end + 32))) {
        let key: string;
        try {
          key = JSON.parse(text.slice(i, end + 1)) as string;
        } catch {
          return; // malformed: JSON.parse says so next
        }
        if (keys.has(key))
          throw invalid(
            `The message's statement has the key '${key.slice(0, 64)}' twice in one object.`,
          );
        keys.add(key);
      }
      i = end;
    }
  }
}

function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i;
  }
  return text.length;
}
