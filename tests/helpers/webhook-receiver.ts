import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";

/**
 * A webhook receiver on loopback (node:http), as a user would write one: it records what it is
 * sent and answers as told. `answer` decides each answer (by default 200, "ok"); every
 * delivery can be checked with `standardwebhooks`' own `Webhook.verify`.
 */

export type Received = {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** When it arrived (Date.now()). */
  at: number;
  /** Its place among the receiver's arrivals and answers, and its answer's, once answered. */
  arrived: number;
  answered?: number;
};

export type Answer = (
  received: Received,
  response: ServerResponse,
  request: IncomingMessage,
) => void | Promise<void>;

export type WebhookReceiver = {
  url: string;
  port: number;
  received: Received[];
  /** What was sent to paths starting with `prefix`. */
  to(prefix: string): Received[];
  /** Requests to paths starting with `prefix` not yet answered: now, and the most at once. */
  open(prefix: string): { now: number; most: number };
  answer: Answer;
  close(): Promise<void>;
};

export const okAnswer: Answer = (_, response) => {
  response.end("ok");
};

export async function startWebhookReceiver(answer: Answer = okAnswer): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const receiver: WebhookReceiver = {
    url: "",
    port: 0,
    received,
    to: (prefix) => received.filter((r) => r.path.startsWith(prefix)),
    open: (prefix) => {
      // Arrivals and answers in the order they happened, counted up and down.
      const steps = receiver
        .to(prefix)
        .flatMap((r): [number, number][] =>
          r.answered === undefined
            ? [[r.arrived, 1]]
            : [
                [r.arrived, 1],
                [r.answered, -1],
              ],
        )
        .sort((a, b) => a[0] - b[0]);
      let now = 0;
      let most = 0;
      for (const [, step] of steps) {
        now += step;
        most = Math.max(most, now);
      }
      return { now, most };
    },
    answer,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  let events = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers))
        if (typeof value === "string") headers[name] = value;
      const entry: Received = {
        path: request.url ?? "/",
        headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
        arrived: ++events,
      };
      received.push(entry);
      response.on("close", () => {
        entry.answered = ++events;
      });
      Promise.resolve(receiver.answer(entry, response, request)).catch(() => response.destroy());
    });
  });
  // Keep-alive is the senders' to use: answer on one connection as long as it asks.
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as { port: number };
  receiver.port = port;
  receiver.url = `http://127.0.0.1:${port}`;
  return receiver;
}

/** The event if `secret` signed the delivery (Standard Webhooks' check); throws otherwise. */
export function verified(secret: string, received: Received): { type: string; data: unknown } {
  return new Webhook(secret).verify(received.body, received.headers) as {
    type: string;
    data: unknown;
  };
}

/** Waits until `condition` holds, polling; false if it did not within `ms`. */
export async function until(condition: () => boolean | Promise<boolean>, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return condition();
}
