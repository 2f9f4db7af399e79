import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { cutText, storableText } from "@/server/kit/text";

/**
 * A tool's result as the model reads it: the text of its content, with a placeholder for what
 * a text model cannot take (images, audio), the structured content when there is no text,
 * made storable and cut at MCP_RESULT_MAX_CHARS, saying so.
 */
export function resultText(
  result: CallToolResult,
  maxChars: number,
): { text: string; isError: boolean } {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "image":
      case "audio":
        parts.push(
          `[${block.type} ${block.mimeType}, ${block.data.length} base64 characters, not shown]`,
        );
        break;
      case "resource":
        parts.push(
          "text" in block.resource
            ? block.resource.text
            : `[resource ${block.resource.uri}, binary, not shown]`,
        );
        break;
      case "resource_link":
        parts.push(`[resource ${block.uri}${block.name ? ` (${block.name})` : ""}]`);
        break;
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  // Servers of the protocol's first version answered with `toolResult`.
  const legacy = (result as { toolResult?: unknown }).toolResult;
  if (parts.length === 0 && legacy !== undefined) parts.push(JSON.stringify(legacy));
  return { text: capText(parts.join("\n"), maxChars), isError: result.isError === true };
}

/** A tool's text made storable and cut at `maxChars` (never through a pair), saying how much. */
export function capText(text: string, maxChars: number): string {
  const storable = storableText(text);
  if (storable.length <= maxChars) return storable;
  const shown = cutText(storable, maxChars);
  return `${shown}\n[cut: ${storable.length.toLocaleString("en")} characters, the first ${shown.length.toLocaleString("en")} shown]`;
}
