import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * A tool's result as the model reads it: the text of its content, with a placeholder for what
 * a text model cannot take (images, audio), the structured content when there is no text,
 * and cut at MCP_RESULT_MAX_CHARS, saying so.
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

/** `text`, cut at `maxChars` with a note of how much there was. */
export function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[cut: ${text.length.toLocaleString("en")} characters, the first ${maxChars.toLocaleString("en")} shown]`;
}
