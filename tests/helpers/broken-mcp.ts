import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What an MCP server's URL may answer besides MCP, on loopback, one answer per path. Every body
 * holds `marker`, which the service must never show (a URL may name an internal page):
 *
 * - `/error-500`, `/error-404`: an HTML error page with that status;
 * - `/html`: 200 with an HTML page; `/not-json`: 200 said to be JSON, with HTML in it;
 * - `/hang`: reads the request and never answers;
 * - `/huge`: 200 with 5 MiB of JSON, its Content-Length said;
 * - `/rpc-error`: answers `initialize` as an MCP server does, then every request with a
 *   JSON-RPC error whose message and data hold the marker.
 */
export type BrokenMcpServer = {
  url(path: string): string;
  marker: string;
  close(): Promise<void>;
};

export async function startBrokenMcpServer(marker: string): Promise<BrokenMcpServer> {
  const page = `<!doctype html><html><body><h1>Internal</h1><p>${marker}</p></body></html>`;
  const http: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? "";
    if (path === "/hang") return;
    if (path === "/error-500" || path === "/error-404") {
      res.writeHead(path === "/error-500" ? 500 : 404, { "content-type": "text/html" }).end(page);
      return;
    }
    if (path === "/html" || path === "/not-json") {
      const type = path === "/html" ? "text/html" : "application/json";
      res.writeHead(200, { "content-type": type }).end(page);
      return;
    }
    if (path === "/huge") {
      // Its length said, as a JSON server says it: refused from the header, before reading it
      // (an answer streamed without one is counted as it is read: the event-stream test).
      const body = JSON.stringify({ marker, padding: "x".repeat(5 * 1024 * 1024) });
      res
        .writeHead(200, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        })
        .end(body);
      return;
    }
    if (path === "/rpc-error" && req.method === "POST") {
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const answer =
        message.method === "initialize"
          ? {
              result: {
                protocolVersion: message.params.protocolVersion,
                capabilities: { tools: {} },
                serverInfo: { name: "rpc-error", version: "1.0.0" },
              },
            }
          : { error: { code: -32603, message: `${marker} failed`, data: { marker } } };
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...answer }));
      return;
    }
    res.writeHead(405).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    marker,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
