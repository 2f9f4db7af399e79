import { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { webRequest } from "@/server/instance";

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
