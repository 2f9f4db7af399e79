import { once } from "node:events";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { describe, expect, it } from "vitest";
import { takingTurnsWithIo } from "@/db/client";

/**
 * PGlite runs queries on the main thread and hands its queue over in microtasks: a burst of
 * queries held back every socket's data until the queue was empty (a streamed completion on the
 * embedded database timed out behind 200 chats' statements, in CI). Through takingTurnsWithIo,
 * data that has arrived is read between queries.
 */
describe("the embedded database's queries and the event loop", () => {
  /** Where, among 100 queued queries, a socket's data is read that arrived as they were queued. */
  const dataAmongQueries = async (client: PGlite, sender: Socket, receiver: Socket) => {
    const order: string[] = [];
    const read = new Promise<void>((resolve) =>
      receiver.once("data", () => {
        order.push("data");
        resolve();
      }),
    );
    const queries = Array.from({ length: 100 }, () =>
      client.query("SELECT 1").then(() => order.push("query")),
    );
    sender.write("x");
    await Promise.all([...queries, read]);
    return order.indexOf("data");
  };

  it("reads a socket's data between queued queries", async () => {
    const server = createServer();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const receiver = connect((server.address() as AddressInfo).port, "127.0.0.1");
    const [sender] = (await once(server, "connection")) as [Socket];
    const raw = new PGlite();
    try {
      await raw.waitReady;
      // PGlite alone: the data waits for all 100.
      expect(await dataAmongQueries(raw, sender, receiver)).toBe(100);
      const turns = takingTurnsWithIo(raw);
      expect(await dataAmongQueries(turns, sender, receiver)).toBeLessThan(10);
      // The rest of PGlite works through it too: its members read its private fields.
      expect(turns.ready).toBe(true);
      expect((await turns.dumpDataDir("none")).size).toBeGreaterThan(0);
    } finally {
      await raw.close();
      receiver.destroy();
      sender.destroy();
      server.close();
    }
  });
});
