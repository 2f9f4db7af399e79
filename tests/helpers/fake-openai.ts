import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach } from "vitest";

/**
 * A fake OpenAI-compatible server on loopback that speaks the real /v1/chat/completions
 * protocol, streaming (server-sent `chat.completion.chunk` events ending in `[DONE]`) and not.
 * Each test says how it should answer; every request body is kept for assertions.
 */

export type ChatCompletionRequest = {
  model: string;
  messages: { role: string; content: string }[];
  temperature?: number;
  max_tokens?: number;
  stream?: boolean;
};

export type Behaviour =
  /** Answers with this text; streamed in `chunks` pieces when the client asks to stream. */
  | { kind: "reply"; text: string; chunks?: number; chunkDelayMs?: number; delayMs?: number }
  /** Answers with an HTTP error (and a short Retry-After, so client retries are quick). */
  | { kind: "error"; status: number }
  /** Never answers; the socket stays open until the client gives up. */
  | { kind: "hang" }
  /** Streams the first pieces of `text`, then hangs. */
  | { kind: "stall"; text: string };

export type FakeOpenAi = {
  /** Base URL for LLM_BASE_URL (ends in /v1). */
  baseUrl: string;
  requests: ChatCompletionRequest[];
  /** Answers the next requests in order with these; the last one repeats. */
  behave(...behaviours: Behaviour[]): void;
  /**
   * Answers each request as `choose` says, given its body and its index (0, 1, 2, … from now
   * on); for mixed behaviour under load. `behave` switches back to a fixed plan.
   */
  behaveBy(choose: (request: ChatCompletionRequest, index: number) => Behaviour): void;
  /** Requests open right now: arrived, and neither answered in full nor closed by the client. */
  inFlight(): number;
  /** The most requests open at once since the start (or the last `resetCounters`). */
  maxInFlight(): number;
  /** Requests whose connection the client closed before the answer was complete. */
  abandoned(): number;
  /** How many requests were given each kind of behaviour (since the last `resetCounters`). */
  served(): Record<Behaviour["kind"], number>;
  /** Sets `maxInFlight`, `abandoned` and `served` back to zero (open requests stay counted). */
  resetCounters(): void;
  close(): Promise<void>;
};

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const requests: ChatCompletionRequest[] = [];
  let plan: Behaviour[] = [{ kind: "reply", text: "Hello from the fake model." }];
  const open = new Set<ServerResponse>();
  let choose: ((request: ChatCompletionRequest, index: number) => Behaviour) | undefined;
  let chosen = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let abandoned = 0;
  const noneServed = (): Record<Behaviour["kind"], number> => ({
    reply: 0,
    error: 0,
    hang: 0,
    stall: 0,
  });
  let served = noneServed();

  const server: Server = createServer(async (req, res) => {
    // Open from the moment the request arrives until its response is done or its socket closes.
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once("close", () => {
      inFlight--;
      if (!res.writableFinished) abandoned++;
    });
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end('{"error":{"message":"not found"}}');
      return;
    }
    const body = JSON.parse(await readBody(req)) as ChatCompletionRequest;
    requests.push(body);
    const behaviour = choose
      ? choose(body, chosen++)
      : ((plan.length > 1 ? plan.shift() : plan[0]) as Behaviour);
    served[behaviour.kind]++;
    open.add(res);
    res.on("close", () => open.delete(res));
    await answer(behaviour, body, res);
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    behave: (...behaviours) => {
      plan = behaviours;
      choose = undefined;
    },
    behaveBy: (chooser) => {
      choose = chooser;
      chosen = 0;
    },
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    abandoned: () => abandoned,
    served: () => ({ ...served }),
    resetCounters: () => {
      maxInFlight = inFlight;
      abandoned = 0;
      served = noneServed();
    },
    close: async () => {
      for (const res of open) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const created = () => Math.floor(Date.now() / 1000);

async function answer(behaviour: Behaviour, request: ChatCompletionRequest, res: ServerResponse) {
  switch (behaviour.kind) {
    case "hang":
      return;
    case "error":
      res
        .writeHead(behaviour.status, { "content-type": "application/json", "retry-after-ms": "10" })
        .end(
          JSON.stringify({
            error: { message: `fake failure ${behaviour.status}`, type: "server_error" },
          }),
        );
      return;
    case "stall":
      startStream(res);
      sendChunk(res, request.model, { role: "assistant", content: behaviour.text.slice(0, 5) });
      return;
    case "reply":
      if (behaviour.delayMs) await new Promise((r) => setTimeout(r, behaviour.delayMs));
      if (!request.stream) {
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            id: "chatcmpl-fake",
            object: "chat.completion",
            created: created(),
            model: request.model,
            choices: [
              {
                index: 0,
                message: { role: "assistant", content: behaviour.text },
                finish_reason: "stop",
              },
            ],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          }),
        );
        return;
      }
      startStream(res);
      for (const piece of split(behaviour.text, behaviour.chunks ?? 4)) {
        sendChunk(res, request.model, { content: piece });
        if (behaviour.chunkDelayMs) await new Promise((r) => setTimeout(r, behaviour.chunkDelayMs));
      }
      sendChunk(res, request.model, {}, "stop");
      res.end("data: [DONE]\n\n");
  }
}

function startStream(res: ServerResponse) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
}

function sendChunk(
  res: ServerResponse,
  model: string,
  delta: object,
  finishReason: string | null = null,
) {
  const chunk = {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: created(),
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
  res.write(`data: ${JSON.stringify(chunk)}\n\n`);
}

function split(text: string, pieces: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / pieces));
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

/**
 * A fake endpoint for one describe block: started before its tests, reset before each (requests
 * forgotten, `reply` as the answer), closed after. Returns a getter for it.
 */
export function useFakeOpenAi(reply = "Hello from the fake model."): () => FakeOpenAi {
  let fake: FakeOpenAi | undefined;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(() => fake?.close());
  beforeEach(() => {
    fake?.requests.splice(0);
    fake?.behave({ kind: "reply", text: reply });
  });
  return () => {
    if (!fake) throw new Error("the fake endpoint is not started yet");
    return fake;
  };
}
