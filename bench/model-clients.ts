/**
 * Which client should read an OpenAI-compatible stream? `npx tsx bench/model-clients.ts`
 * measures, in this process, the CPU each candidate spends on one streamed chat completion
 * (200 tokens in 20 network writes) and one JSON completion, against the fake model running in
 * a child process (so its own CPU is not counted). Calls run 16 at a time.
 *
 * The service's client is undici's `request` with eventsource-parser. The AI SDK and the `openai`
 * client, the candidates it was chosen over, are not dependencies; to compare them too, install
 * them in a folder and name it: `npm i --prefix /tmp/clients ai@6 @ai-sdk/openai-compatible@2 openai@5`,
 * then `CLIENTS_DIR=/tmp/clients npx tsx bench/model-clients.ts`.
 */
import { fork } from "node:child_process";
import path from "node:path";
import { createParser } from "eventsource-parser";
import { request as undiciRequest } from "undici";
import { startFakeOpenAi } from "../tests/helpers/fake-openai";

if (process.argv[2] === "fake") {
  const fake = await startFakeOpenAi();
  fake.behave({ kind: "tokens", tokens: 200, writes: 20, latencyMs: 0 });
  process.send?.(fake.baseUrl);
} else {
  await main();
}

type Client = { name: string; stream(): Promise<number>; json(): Promise<number> };

async function main() {
  const child = fork(process.argv[1] as string, ["fake"], {
    execArgv: process.execArgv,
    stdio: "inherit",
  });
  const baseUrl = await new Promise<string>((resolve) => child.once("message", resolve));
  const body = (stream: boolean) =>
    JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "hello" }],
      max_tokens: 1024,
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    });
  const headers = { "content-type": "application/json", authorization: "Bearer sk" };
  const url = `${baseUrl}/chat/completions`;

  /** Reads `data:` lines by hand: the text deltas of each network read, joined. */
  const lineReader = () => {
    let carry = "";
    let chars = 0;
    return {
      push(text: string) {
        const lines = (carry + text).split("\n");
        carry = lines.pop() ?? "";
        for (const line of lines) {
          if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
          const chunk = JSON.parse(line.slice(6));
          chars += chunk.choices?.[0]?.delta?.content?.length ?? 0;
        }
      },
      chars: () => chars,
    };
  };

  const clients: Client[] = [
    {
      name: "fetch + eventsource-parser",
      async stream() {
        const response = await fetch(url, { method: "POST", headers, body: body(true) });
        let chars = 0;
        const parser = createParser({
          onEvent(event) {
            if (event.data === "[DONE]") return;
            chars += JSON.parse(event.data).choices?.[0]?.delta?.content?.length ?? 0;
          },
        });
        const decoder = new TextDecoder();
        for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>)
          parser.feed(decoder.decode(bytes, { stream: true }));
        return chars;
      },
      async json() {
        const response = await fetch(url, { method: "POST", headers, body: body(false) });
        return ((await response.json()) as { choices: { message: { content: string } }[] })
          .choices[0]?.message.content.length as number;
      },
    },
    {
      name: "fetch + line parser",
      async stream() {
        const response = await fetch(url, { method: "POST", headers, body: body(true) });
        const reader = lineReader();
        const decoder = new TextDecoder();
        for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>)
          reader.push(decoder.decode(bytes, { stream: true }));
        return reader.chars();
      },
      async json() {
        const response = await fetch(url, { method: "POST", headers, body: body(false) });
        return ((await response.json()) as { choices: { message: { content: string } }[] })
          .choices[0]?.message.content.length as number;
      },
    },
    {
      name: "undici.request + eventsource-parser",
      async stream() {
        const response = await undiciRequest(url, { method: "POST", headers, body: body(true) });
        let chars = 0;
        const parser = createParser({
          onEvent(event) {
            if (event.data === "[DONE]") return;
            chars += JSON.parse(event.data).choices?.[0]?.delta?.content?.length ?? 0;
          },
        });
        response.body.setEncoding("utf8");
        for await (const text of response.body) parser.feed(text as string);
        return chars;
      },
      async json() {
        const response = await undiciRequest(url, { method: "POST", headers, body: body(false) });
        return ((await response.body.json()) as { choices: { message: { content: string } }[] })
          .choices[0]?.message.content.length as number;
      },
    },
  ];
  const extras = process.env.CLIENTS_DIR;
  if (extras) {
    const from = (name: string) => import(path.join(extras, "node_modules", name));
    const { createOpenAICompatible } = await from("@ai-sdk/openai-compatible/dist/index.mjs");
    const { generateText, streamText } = await from("ai/dist/index.mjs");
    const sdk = createOpenAICompatible({ name: "llm", baseURL: baseUrl, apiKey: "sk" });
    clients.unshift({
      name: "AI SDK (streamText / generateText)",
      async stream() {
        const result = streamText({
          model: sdk.chatModel("m"),
          messages: [{ role: "user", content: "hello" }],
        });
        let chars = 0;
        for await (const part of result.fullStream)
          if (part.type === "text-delta") chars += part.text.length;
        return chars;
      },
      async json() {
        const result = await generateText({
          model: sdk.chatModel("m"),
          messages: [{ role: "user", content: "hello" }],
        });
        return result.text.length;
      },
    });
    const { default: OpenAI } = await from("openai/index.mjs");
    const openai = new OpenAI({ baseURL: baseUrl, apiKey: "sk", maxRetries: 0 });
    clients.push({
      name: "openai SDK",
      async stream() {
        const stream = await openai.chat.completions.create({
          model: "m",
          messages: [{ role: "user", content: "hello" }],
          stream: true,
          stream_options: { include_usage: true },
        });
        let chars = 0;
        for await (const chunk of stream) chars += chunk.choices[0]?.delta?.content?.length ?? 0;
        return chars;
      },
      async json() {
        const completion = await openai.chat.completions.create({
          model: "m",
          messages: [{ role: "user", content: "hello" }],
        });
        return completion.choices[0]?.message.content?.length ?? 0;
      },
    });
  }

  const CALLS = Number(process.env.CALLS ?? 2000);
  const AT_ONCE = 16;
  const cpuPerCall = async (call: () => Promise<number>) => {
    const run = async (calls: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: AT_ONCE }, async () => {
          while (next++ < calls) if ((await call()) === 0) throw new Error("empty reply");
        }),
      );
    };
    await run(200); // warm up
    const before = process.cpuUsage();
    const started = performance.now();
    await run(CALLS);
    const used = process.cpuUsage(before);
    return {
      cpuUs: (used.user + used.system) / CALLS,
      wallMs: (performance.now() - started) / CALLS,
    };
  };
  for (const client of clients) {
    const stream = await cpuPerCall(client.stream);
    const json = await cpuPerCall(client.json);
    console.info(
      `${client.name.padEnd(40)} stream: ${(stream.cpuUs / 1000).toFixed(2)} ms CPU/call  json: ${(json.cpuUs / 1000).toFixed(2)} ms CPU/call`,
    );
  }
  child.kill();
}
