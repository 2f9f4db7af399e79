import type { Readable } from "node:stream";
import { createParser } from "eventsource-parser";
import { type Dispatcher, request as httpRequest } from "undici";
import type { LlmConfig } from "@/server/frame/config";
import { isHighSurrogate, storableJsonText, storableText } from "@/server/kit/text";
import type {
  FinishReason,
  ModelChunk,
  ModelProvider,
  ModelRequest,
  ProviderUsage,
  Sampling,
  ToolCallRequest,
} from "./provider";
import { ProviderHttpError, ProviderReplyError, retryAfterMs, withRetries } from "./retry";

/**
 * A provider that speaks OpenAI's POST /chat/completions (OpenAI, Ollama, vLLM, …). Not the AI
 * SDK nor the `openai` client: their per-chunk layers cost several times the CPU per call
 * (bench/model-clients.ts). Each network read is given on as one chunk, so a relay forwards it in
 * one event; what the model sends is made storable here, where it enters (server/kit/text.ts).
 */
export function openAiCompatibleProvider(
  config: Pick<LlmConfig, "apiKey" | "maxRetries"> & {
    baseUrl: string;
    /** Where its connections come from: an agent's endpoint's, whose lookups are guarded. */
    dispatcher?: Dispatcher;
  },
): ModelProvider {
  const url = `${config.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;

  const body = (request: ModelRequest, stream: boolean) =>
    JSON.stringify({
      model: request.model,
      messages: [{ role: "system", content: request.system }, ...request.messages],
      temperature: request.temperature,
      max_tokens: request.maxOutputTokens,
      ...(request.sampling ? samplingFields(request.sampling) : {}),
      ...(request.tools ? { tools: request.tools } : {}),
      ...(request.toolChoice ? { tool_choice: request.toolChoice } : {}),
      // Streams carry usage only when asked, in a last chunk with no choices.
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    });

  const post = (request: ModelRequest, stream: boolean) =>
    withRetries(
      async () => {
        const response = await httpRequest(url, {
          method: "POST",
          headers: request.traceHeaders ? { ...headers, ...request.traceHeaders } : headers,
          body: body(request, stream),
          signal: request.signal,
          ...(config.dispatcher ? { dispatcher: config.dispatcher } : {}),
        });
        if (response.statusCode >= 300) {
          // Read and dropped, so the connection can be kept; its text is never shown to clients.
          await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
          throw new ProviderHttpError(response.statusCode, retryAfterMs(response.headers));
        }
        return response;
      },
      { maxRetries: config.maxRetries, signal: request.signal },
    );

  return {
    name: "openai-compatible",
    async generate(request) {
      const response = await post(request, false);
      const completion = (await response.body.json().catch(() => {
        throw new ProviderReplyError("The model provider's answer is not JSON.");
      })) as Completion;
      const message = completion?.choices?.[0]?.message;
      const content = message?.content;
      const toolCalls = message?.tool_calls === undefined ? [] : readToolCalls(message.tool_calls);
      if (typeof content !== "string" && content !== null && toolCalls.length === 0)
        throw new ProviderReplyError("The model provider's answer has no message.");
      const finishReason = readFinishReason(completion.choices?.[0]?.finish_reason);
      return {
        text: typeof content === "string" ? storableText(content) : "",
        usage: readUsage(completion.usage),
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
        ...(finishReason ? { finishReason } : {}),
      };
    },
    // The request is sent when the stream is first read, by the generator itself: a generator
    // that only delegated to another would cost every chunk one more resumption.
    stream: (request) => readStream(async () => (await post(request, true)).body),
  };
}

/** A caller's sampling settings in OpenAI's names; undefined ones vanish in JSON.stringify. */
function samplingFields(sampling: Sampling) {
  return {
    top_p: sampling.topP,
    stop: sampling.stop,
    seed: sampling.seed,
    frequency_penalty: sampling.frequencyPenalty,
    presence_penalty: sampling.presencePenalty,
    response_format: sampling.responseFormat,
  };
}

/** The finish reasons a caller is told of; `tool_calls` is not one (tools run in the service). */
function readFinishReason(reason: unknown): FinishReason | undefined {
  return reason === "length" || reason === "content_filter" || reason === "stop"
    ? reason
    : undefined;
}

type Completion = {
  choices?: {
    message?: { content?: unknown; tool_calls?: unknown };
    delta?: { content?: unknown; tool_calls?: unknown };
    finish_reason?: unknown;
  }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
  error?: unknown;
};

/**
 * Each network read's text as one chunk, then the usage and tool calls. A read ending in the
 * first half of a surrogate pair keeps it for the next: a lone half would become U+FFFD.
 */
async function* readStream(respond: () => Promise<Readable>): AsyncGenerator<ModelChunk> {
  const body = await respond();
  let text = "";
  let usage: ProviderUsage | undefined;
  let finishReason: FinishReason | undefined;
  let failure: Error | undefined;
  // Built from fragments: each names its call by `index`, the first brings its id and name.
  const toolCalls: ToolCallRequest[] = [];
  const parser = createParser({
    onEvent({ data }) {
      if (data === "[DONE]" || failure) return;
      let chunk: Completion;
      try {
        chunk = JSON.parse(data);
      } catch {
        failure = new ProviderReplyError("The model provider sent a malformed stream chunk.");
        return;
      }
      if (chunk.error) {
        failure = new ProviderReplyError("The model provider reported an error mid-stream.");
        return;
      }
      const choice = chunk.choices?.[0];
      finishReason = readFinishReason(choice?.finish_reason) ?? finishReason;
      const delta = choice?.delta;
      const content = delta?.content;
      if (typeof content === "string") text += content;
      if (delta?.tool_calls !== undefined) addToolCallFragments(toolCalls, delta.tool_calls);
      usage = readUsage(chunk.usage) ?? usage;
    },
  });
  body.setEncoding("utf8");
  try {
    for await (const read of body) {
      parser.feed(read as string);
      if (failure) throw failure;
      const whole = isHighSurrogate(text.charCodeAt(text.length - 1))
        ? text.length - 1
        : text.length;
      if (whole > 0) {
        const chunk = { text: storableText(whole === text.length ? text : text.slice(0, whole)) };
        text = whole === text.length ? "" : text.slice(whole);
        yield chunk;
      }
    }
    // A half kept for a next read that never came: alone, it is made U+FFFD.
    const rest = storableText(text);
    if (rest || usage || finishReason || toolCalls.length > 0)
      yield {
        text: rest,
        usage,
        ...(finishReason ? { finishReason } : {}),
        ...(toolCalls.length > 0 ? { toolCalls: named(toolCalls) } : {}),
      };
  } finally {
    // Reached early when the consumer stops (the client left, the reply hit its cap): close the
    // upstream request rather than read a reply nobody will see.
    body.destroy();
  }
}

type ToolCallFragment = {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
};

function readToolCalls(calls: unknown): ToolCallRequest[] {
  const found: ToolCallRequest[] = [];
  if (Array.isArray(calls)) {
    for (const call of calls as ToolCallFragment[])
      addToolCallFragments(found, [{ ...call, index: found.length }]);
  }
  return named(found);
}

/**
 * Adds a chunk's tool-call fragments by `index`; a provider that sends no index starts a call
 * with each id and continues the last one otherwise.
 */
function addToolCallFragments(calls: ToolCallRequest[], fragments: unknown): void {
  if (!Array.isArray(fragments)) return;
  for (const fragment of fragments as ToolCallFragment[]) {
    const index =
      typeof fragment?.index === "number"
        ? fragment.index
        : typeof fragment?.id === "string" || calls.length === 0
          ? calls.length
          : calls.length - 1;
    if (index < 0 || index > 127) continue;
    let call = calls[index];
    if (!call) {
      call = { id: "", name: "", arguments: "" };
      calls[index] = call;
    }
    if (typeof fragment.id === "string" && !call.id) call.id = fragment.id;
    const name = fragment.function?.name;
    // Whole in its first fragment (OpenAI, vLLM, Ollama); some providers repeat it later.
    if (typeof name === "string" && !call.name) call.name = name;
    const args = fragment.function?.arguments;
    if (typeof args === "string") call.arguments += args;
  }
}

/** Named calls, ids made up where missing, text made storable: the tool gets what is stored. */
function named(calls: ToolCallRequest[]): ToolCallRequest[] {
  return calls
    .flatMap((call) => {
      const name = call ? storableText(call.name) : "";
      return name
        ? [{ id: storableText(call.id), name, arguments: storableJsonText(call.arguments) }]
        : [];
    })
    .map((call, i) => (call.id ? call : { ...call, id: `call_${i + 1}` }));
}

/**
 * Far more tokens than any model's context or reply holds, so a count above it cannot be right;
 * it also keeps a reply's summed turns within the integer columns its tokens are stored in.
 */
export const MAX_REPORTED_TOKENS = 100_000_000;

/** The provider's usage if its counts can be right; else none, and the tokens are estimated. */
function readUsage(usage: Completion["usage"]): ProviderUsage | undefined {
  const input = usage?.prompt_tokens;
  const output = usage?.completion_tokens;
  return isTokenCount(input) && isTokenCount(output)
    ? { inputTokens: input, outputTokens: output }
    : undefined;
}

const isTokenCount = (count: unknown): count is number =>
  Number.isInteger(count) && (count as number) >= 0 && (count as number) <= MAX_REPORTED_TOKENS;
