import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rowsOf } from "@/db/rows";
import { historyFromJson, historyJson, loadHistory } from "@/server/threads";
import { DATABASE_KINDS, useTestDatabase } from "../helpers/databases";
import { genericPlanNodes, insertBareAgent } from "../helpers/generic-plan";

/**
 * The history read (a thread's last messages) must keep to the thread's index however the
 * table is skewed. Every query with parameters is a prepared statement here, and after five
 * runs PostgreSQL may keep a generic plan, made without the values: with one thread holding
 * most of the messages, the read as first written got a plan that read the primary key
 * backwards and filtered, the whole table for a new or short thread (BENCHMARKS.md).
 */
describe.each(DATABASE_KINDS)("the history read on %s", (kind) => {
  const testDatabase = useTestDatabase(kind);
  const BIG = 20_000;

  /** One agent; one thread of BIG messages, analysed, then a short one of another caller. */
  async function seedSkewedThreads() {
    const { db } = testDatabase();
    await insertBareAgent(db, "skewed");
    await db.execute(sql`
      INSERT INTO chat_threads (aid, caller, chat_id, message_count, created_at, last_message_at)
      VALUES ('skewed', 'addr:busy', 'big', ${BIG}, now(), now()),
        ('skewed', 'addr:quiet', 'short', 3, now(), now())`);
    await db.execute(sql`
      INSERT INTO chat_messages (aid, caller, chat_id, role, content, created_at)
      SELECT 'skewed', 'addr:busy', 'big', CASE WHEN i % 2 = 0 THEN 'assistant' ELSE 'user' END,
        'big ' || i, now()
      FROM generate_series(1, ${BIG}) AS i`);
    // Statistics taken while one thread held every message, as on a service whose one busy
    // thread (an autonomous agent's, say) dwarfs the rest; then a short thread begins.
    await db.execute(sql`ANALYZE chat_messages`);
    await db.execute(sql`
      INSERT INTO chat_messages (aid, caller, chat_id, role, content, created_at)
      SELECT 'skewed', 'addr:quiet', 'short', 'user', 'short ' || i, now()
      FROM generate_series(1, 3) AS i`);
  }

  /** How the read's generic plan for this thread reads chat_messages: the indexes it scans,
   * and whether it scans the table. */
  async function messageReads(thread: { aid: string; caller: string; chatId: string }) {
    const nodes = await genericPlanNodes(
      testDatabase().db,
      sql`SELECT ${historyJson(thread, 20)} AS history`,
    );
    return {
      indexes: nodes.flatMap((node) =>
        node["Index Name"]?.startsWith("chat_messages") ? [node["Index Name"]] : [],
      ),
      tableScans: nodes.filter(
        (node) => node["Node Type"] === "Seq Scan" && node["Relation Name"] === "chat_messages",
      ).length,
    };
  }

  it("scans the thread's own index for a new, a short and the large thread alike", async () => {
    await seedSkewedThreads();
    for (const thread of [
      { aid: "skewed", caller: "addr:quiet", chatId: "new" },
      { aid: "skewed", caller: "addr:quiet", chatId: "short" },
      { aid: "skewed", caller: "addr:busy", chatId: "big" },
    ]) {
      const reads = await messageReads(thread);
      expect(reads, thread.chatId).toEqual({ indexes: ["chat_messages_thread"], tableScans: 0 });
    }
  });

  it("reads the thread's last messages, oldest first, and no other thread's", async () => {
    await seedSkewedThreads();
    const { db } = testDatabase();
    const config = { historyMessages: 4, historyMaxChars: 10_000 };
    const short = await loadHistory(
      db,
      { aid: "skewed", caller: "addr:quiet", chatId: "short" },
      config,
    );
    expect(short).toEqual([
      { role: "user", content: "short 1" },
      { role: "user", content: "short 2" },
      { role: "user", content: "short 3" },
    ]);
    const big = await loadHistory(
      db,
      { aid: "skewed", caller: "addr:busy", chatId: "big" },
      config,
    );
    expect(big.map((turn) => turn.content)).toEqual([
      `big ${BIG - 3}`,
      `big ${BIG - 2}`,
      `big ${BIG - 1}`,
      `big ${BIG}`,
    ]);
    // A thread name that sorts between others' (the range matches it alone).
    expect(
      await loadHistory(db, { aid: "skewed", caller: "addr:quiet", chatId: "shor" }, config),
    ).toEqual([]);
    // The opening statement's form of it reads the same.
    const [row] = rowsOf<{ history: unknown }>(
      await db.execute(
        sql`SELECT ${historyJson({ aid: "skewed", caller: "addr:quiet", chatId: "short" }, 2)} AS history`,
      ),
    );
    expect(historyFromJson(row?.history, config).map((turn) => turn.content)).toEqual([
      "short 2",
      "short 3",
    ]);
  });
});
