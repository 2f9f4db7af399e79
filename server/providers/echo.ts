import { storableText } from "@/server/kit/text";
import type { ModelProvider, ModelRequest } from "./provider";

/**
 * The built-in provider when none is configured: it answers at once and deterministically, so the
 * whole service runs offline. It reports no usage, so its tokens are estimated as for any provider
 * that does not say.
 */
export function echoReply(request: Pick<ModelRequest, "messages">): string {
  const last = request.messages.at(-1);
  const earlier = request.messages.length - 1;
  return storableText(
    `echo: ${last?.content ?? ""}${earlier > 0 ? ` (after ${earlier} earlier messages)` : ""}`,
  );
}

/** What echo replies report as their model: no configured model (LLM_MODEL's default) wrote them. */
export const ECHO_MODEL = "echo";

export const echoProvider: ModelProvider = {
  name: "echo",
  model: ECHO_MODEL,
  async generate(request) {
    request.signal.throwIfAborted();
    return { text: echoReply(request), finishReason: "stop" };
  },
  async *stream(request) {
    // Word by word, so streaming clients see several chunks.
    for (const text of echoReply(request).match(/\S+\s*/g) ?? []) {
      request.signal.throwIfAborted();
      yield { text };
    }
  },
};
