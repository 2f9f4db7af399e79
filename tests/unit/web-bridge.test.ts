import { createServer, IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import {
  carriedBody,
  SERVED_DIRECTLY,
  sendWebResponse,
  servedDirectly,
  streamedResponse,
  type TextChunks,
  textResponse,
  webRequest,
  withBody,
} from "@/server/instance";

/**
 * The Web `Request` the server entry hands a route handler (server/instance/web-bridge.ts): its
 * signal is the entry's own, so that a client that leaves aborts what the handler started.
 */

function incoming(method: string, url: string, headers: Record<string, string>): IncomingMessage {
  const message = new IncomingMessage(new Socket());
  message.method = method;
  message.url = url;
  message.headers = headers;
  return message;
}

describe("the request a route handler gets", () => {
  it("carries the entry's signal itself, aborted when the client leaves", () => {
    const aborter = new AbortController();
    const request = webRequest(
      incoming("GET", "/a1/chat?q=hi", { accept: "application/json", "x-many": "1" }),
      "http://localhost:3000",
      aborter.signal,
    );
    expect(request.signal).toBe(aborter.signal);
    expect(request.signal.aborted).toBe(false);
    aborter.abort();
    expect(request.signal.aborted).toBe(true);
    expect(request.url).toBe("http://localhost:3000/a1/chat?q=hi");
    expect(request.method).toBe("GET");
    expect(request.headers.get("accept")).toBe("application/json");
  });

  it("keeps a request's body readable", async () => {
    const message = incoming("POST", "/agents", {
      "content-type": "application/json",
      "content-length": "9",
    });
    message.push('{"a":"b"}');
    message.push(null);
    const request = webRequest(message, "http://localhost:3000", new AbortController().signal);
    await expect(request.json()).resolves.toEqual({ a: "b" });
  });
});

/** Answers every request with `answer()` through the entry's writer; returns its URL. */
async function entryServing(answer: () => Response) {
  const server = createServer((request, response) => {
    void sendWebResponse(answer(), response, request.method ?? "GET");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}

describe("an answer carried as text", () => {
  const answer = () =>
    textResponse('{"reply":"héllo"}', {
      status: 201,
      headers: { "content-type": "application/json", "x-one": "1" },
    });

  it("has no Web body until it leaves for Next.js, then the same status, headers and text", async () => {
    const carried = answer();
    expect(carried.body).toBeNull();
    expect(carriedBody(carried)).toBe('{"reply":"héllo"}');
    const given = withBody(carried);
    expect(given.status).toBe(201);
    expect(given.headers.get("content-type")).toBe("application/json");
    expect(given.headers.get("x-one")).toBe("1");
    expect(await given.text()).toBe('{"reply":"héllo"}');
    const streamed = new Response("as it is");
    expect(withBody(streamed)).toBe(streamed);
  });

  it("is given its body by the handler Next.js calls, not by the one the entry calls", async () => {
    const handler = async (_request: Request) => answer();
    const forNextJs = servedDirectly(handler, handler);
    const direct = (forNextJs as unknown as Record<symbol, typeof handler>)[SERVED_DIRECTLY];
    expect(direct).toBe(handler);
    const request = new Request("http://localhost/");
    expect(await (await forNextJs(request)).text()).toBe('{"reply":"héllo"}');
    expect((await direct?.(request))?.body).toBeNull();
  });

  it("is written by the entry whole, with its length in bytes, and without a body for HEAD", async () => {
    const server = await entryServing(answer);
    try {
      const got = await fetch(server.url);
      expect(got.status).toBe(201);
      expect(got.headers.get("content-length")).toBe(
        String(Buffer.byteLength('{"reply":"héllo"}')),
      );
      expect(got.headers.get("x-one")).toBe("1");
      expect(await got.text()).toBe('{"reply":"héllo"}');
      const head = await fetch(server.url, { method: "HEAD" });
      expect(head.status).toBe(201);
      expect(await head.text()).toBe("");
    } finally {
      await server.close();
    }
  });
});

/** Chunks from a list, then a wait for `release` before the end; says when `return()` came. */
function chunksFrom(list: string[], release: Promise<void> = Promise.resolve()) {
  let at = 0;
  const stopped = { count: 0 };
  let stop: () => void = () => {};
  const stopping = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const chunks: TextChunks = {
    async next() {
      if (at < list.length) return { value: list[at++] as string, done: false };
      await Promise.race([release, stopping]);
      return { value: undefined, done: true };
    },
    async return() {
      stopped.count += 1;
      stop();
      return { value: undefined, done: true };
    },
  };
  return { chunks, stopped };
}

const EVENTS = { "content-type": "text/event-stream; charset=utf-8" };

describe("an answer carried as chunks", () => {
  it("becomes a Web stream of the same chunks for Next.js, stopped by its cancel", async () => {
    const whole = chunksFrom(["event: a\n\n", "event: é\n\n"]);
    const given = withBody(streamedResponse(whole.chunks, { headers: EVENTS }));
    expect(given.headers.get("content-type")).toBe(EVENTS["content-type"]);
    expect(await given.text()).toBe("event: a\n\nevent: é\n\n");

    const cut = chunksFrom(["event: a\n\n"], new Promise(() => {}));
    const reader = withBody(streamedResponse(cut.chunks, { headers: EVENTS })).body?.getReader();
    expect(new TextDecoder().decode((await reader?.read())?.value)).toBe("event: a\n\n");
    await reader?.cancel();
    expect(cut.stopped.count).toBe(1);
  });

  it("is written by the entry as it comes, and stopped when the client leaves", async () => {
    const whole = chunksFrom(["event: a\n\n", "event: b\n\n"]);
    let answer = () => streamedResponse(whole.chunks, { headers: EVENTS });
    const server = await entryServing(() => answer());
    try {
      const got = await fetch(server.url);
      expect(got.headers.get("content-type")).toBe(EVENTS["content-type"]);
      expect(await got.text()).toBe("event: a\n\nevent: b\n\n");

      const endless = chunksFrom(["event: a\n\n"], new Promise(() => {}));
      answer = () => streamedResponse(endless.chunks, { headers: EVENTS });
      const leaving = new AbortController();
      const open = await fetch(server.url, { signal: leaving.signal });
      const reader = open.body?.getReader();
      expect(new TextDecoder().decode((await reader?.read())?.value)).toBe("event: a\n\n");
      leaving.abort();
      await expect.poll(() => endless.stopped.count).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("is a Web body's too, for a handler that makes one: written as it comes, cancelled when the client leaves", async () => {
    let cancelled = 0;
    const server = await entryServing(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode("event: a\n\n"));
            },
            cancel() {
              cancelled += 1;
            },
          }),
          { headers: EVENTS },
        ),
    );
    try {
      const leaving = new AbortController();
      const open = await fetch(server.url, { signal: leaving.signal });
      const reader = open.body?.getReader();
      expect(new TextDecoder().decode((await reader?.read())?.value)).toBe("event: a\n\n");
      leaving.abort();
      await expect.poll(() => cancelled).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("is stopped when the client had gone before the entry began writing", async () => {
    const gone = new ServerResponse(incoming("GET", "/", {}));
    gone.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    const endless = chunksFrom(["event: a\n\n"], new Promise(() => {}));
    await sendWebResponse(streamedResponse(endless.chunks, { headers: EVENTS }), gone, "GET");
    expect(endless.stopped.count).toBe(1);
  });
});
