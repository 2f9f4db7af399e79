import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Comments say why in a sentence or two; what the code says, its history and its figures belong
 * elsewhere. A bound on server/'s comment lines per code line keeps narration from creeping back.
 */
const MAX_RATIO = 0.12;

const server = path.resolve(import.meta.dirname, "../../server");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/**
 * A comment line is one that, trimmed, starts with //, /*, * or *\/, or lies inside a block
 * comment; a code line is any other non-blank line.
 */
function countLines(text: string): { comment: number; code: number } {
  let comment = 0;
  let code = 0;
  let inBlock = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    if (inBlock) {
      comment++;
      if (line.includes("*/")) inBlock = false;
    } else if (line.startsWith("//")) {
      comment++;
    } else if (line.startsWith("/*")) {
      comment++;
      if (!line.includes("*/")) inBlock = true;
    } else {
      code++;
    }
  }
  return { comment, code };
}

describe("comment density", () => {
  it(`keeps server/ at ${MAX_RATIO} comment lines per code line or fewer`, () => {
    const files = sourceFiles(server).map((file) => ({
      file: path.relative(path.dirname(server), file),
      ...countLines(readFileSync(file, "utf8")),
    }));
    const comment = files.reduce((sum, file) => sum + file.comment, 0);
    const code = files.reduce((sum, file) => sum + file.code, 0);
    const ratio = comment / code;
    const most = [...files]
      .sort((a, b) => b.comment - a.comment)
      .slice(0, 5)
      .map((file) => `${file.file} (${file.comment} comment lines, ${file.code} code lines)`);
    expect(
      ratio,
      `server/ has ${comment} comment lines for ${code} code lines, a ratio of ` +
        `${ratio.toFixed(3)} (at most ${MAX_RATIO}). Most comment lines: ${most.join("; ")}.`,
    ).toBeLessThanOrEqual(MAX_RATIO);
  });
});
