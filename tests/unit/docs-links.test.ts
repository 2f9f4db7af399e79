import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

/** The documents a reader follows links in: the README and the guides beside it. */
const documents = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown
    .replace(/^ {0,3}(```|~~~)[^\n]*\n[\s\S]*?^ {0,3}\1[^\n]*$/gm, "")
    .replace(/(`+)[\s\S]*?\1/g, "");
}

/** The targets of inline links and images (`[text](target "title")`) and of definitions. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+["'(][^)]*)?\)/g)].map((match) =>
    (match[1] as string).replace(/^<(.*)>$/, "$1"),
  );
  const defined = [...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/gm)].map((match) =>
    (match[1] as string).replace(/^<(.*)>$/, "$1"),
  );
  return [...inline, ...defined];
}

/**
 * A heading's anchor as GitHub makes it: the heading's text (inline code and links reduced to
 * their text), lowercase, every character but letters, digits, spaces, `-` and `_` dropped,
 * spaces turned into `-`.
 */
function slug(heading: string): string {
  return heading
    .replace(/`([^`]*)`/g, "$1")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\*+/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor of a Markdown file; a repeated heading gets `-1`, `-2`, … as on GitHub. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const withoutCode = markdown.replace(/^ {0,3}(```|~~~)[^\n]*\n[\s\S]*?^ {0,3}\1[^\n]*$/gm, "");
  for (const [, heading] of withoutCode.matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = slug(heading as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** Why a relative link of `document` does not resolve, or undefined when it does. */
function brokenBecause(document: string, target: string): string | undefined {
  const hash = target.indexOf("#");
  const file = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const fragment = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const resolved = file
    ? path.resolve(path.dirname(path.join(root, document)), file)
    : path.join(root, document);
  if (!existsSync(resolved)) return `${path.relative(root, resolved)} does not exist`;
  if (fragment === undefined) return undefined;
  if (statSync(resolved).isDirectory() || !resolved.endsWith(".md"))
    return `#${fragment} points into ${path.relative(root, resolved)}, which has no headings`;
  if (!anchors(readFileSync(resolved, "utf8")).has(fragment))
    return `${path.relative(root, resolved)} has no heading #${fragment}`;
  return undefined;
}

const isAbsolute = (target: string) =>
  /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//");

describe("relative links in the README and docs/", () => {
  it("are found in prose and not in code", () => {
    const sample = [
      "See [the guide](docs/chat.md#threads) and ![a picture](img.png 'title').",
      "`[not a link](nowhere.md)`",
      "```sh",
      "echo [not a link](nowhere.md)",
      "```",
      "[defined]: <docs/keys.md>",
    ].join("\n");
    expect(linkTargets(sample)).toEqual(["docs/chat.md#threads", "img.png", "docs/keys.md"]);
  });

  it("match headings by GitHub's anchors", () => {
    expect(slug("MCP_ALLOWED_HOSTS: what it protects and what it does not")).toBe(
      "mcp_allowed_hosts-what-it-protects-and-what-it-does-not",
    );
    expect(slug("`GET /{aid}/chat`, threads and callers")).toBe("get-aidchat-threads-and-callers");
    expect([...anchors("# Notes\n## Notes\n```\n# not a heading\n```\n")]).toEqual([
      "notes",
      "notes-1",
    ]);
  });

  it.each(documents)("resolve in %s", (document) => {
    const broken = linkTargets(readFileSync(path.join(root, document), "utf8"))
      .filter((target) => !isAbsolute(target))
      .flatMap((target) => {
        const reason = brokenBecause(document, target);
        return reason ? [`${target}: ${reason}`] : [];
      });
    expect(broken).toEqual([]);
  });
});
