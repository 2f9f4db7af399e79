/**
 * PostgreSQL's instructions an echo chat, counted by callgrind (BENCHMARKS.md cites it):
 *
 *   npx next build && npx tsx bench/database-instructions.ts
 *
 * CPU time a chat (bench/database-per-chat.ts) moves by a fifth between runs on these machines;
 * instructions counted by valgrind's callgrind do not move at all for the same build and load,
 * so two builds can be told apart by a few percent. PostgreSQL runs under callgrind (every
 * process of the server, backends and background workers); the built service, one web process
 * and the echo provider, sends chats to it from CHATS_IN_FLIGHT clients over AGENTS agents. A
 * run of N chats and one of 3N are counted on fresh servers, and their difference over 2N is
 * what a chat costs, without the start, the migrations and the seeding. DB_AGAINST=<checkout>
 * counts a second build (another checkout, built) the same way. `npm run bench` runs it with
 * BENCH_ONLY=database.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import postgres from "postgres";
import { freePort, type RunningServer, startServer, TEST_ADMIN_KEY } from "../tests/helpers/server";
import { startServerIn } from "./processes";

const AGENTS = 50;
const CHATS_IN_FLIGHT = 4;
const CHATS = Number(process.env.DB_INSTRUCTION_CHATS || 300);
const BIN = process.env.PG_BIN_DIR ?? "/usr/lib/postgresql/15/bin";

type Counted = { build: string; instructions_per_chat: number };

/** Runs `args` as the postgres user when this is root (PostgreSQL refuses to run as root). */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0
    ? ["runuser", ["-u", "postgres", "--", command, ...args]]
    : [command, args];
}

async function postgresUnderCallgrind() {
  const dir = mkdtempSync(path.join(tmpdir(), "pg-callgrind-"));
  chmodSync(dir, 0o777);
  const data = path.join(dir, "data");
  const out = path.join(dir, "out");
  execFileSync(
    ...asPostgres(`${BIN}/initdb`, ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]),
    { stdio: "pipe" },
  );
  execFileSync(...asPostgres("mkdir", [out]));
  const port = await freePort();
  const server: ChildProcess = spawn(
    ...asPostgres("valgrind", [
      "--tool=callgrind",
      "--trace-children=yes",
      `--callgrind-out-file=${out}/cg.%p`,
      `${BIN}/postgres`,
      "-D",
      data,
      "-p",
      String(port),
      "-k",
      dir,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "fsync=on",
    ]),
    { stdio: "ignore" },
  );
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  for (let attempt = 0; ; attempt++) {
    const probe = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });
    try {
      await probe`SELECT 1`;
      break;
    } catch (error) {
      if (attempt > 120) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    } finally {
      await probe.end({ timeout: 1 });
    }
  }
  return {
    url,
    /** Stops the server and sums the instructions of every process it ran. */
    async stop(): Promise<number> {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      execFileSync(
        ...asPostgres(`${BIN}/pg_ctl`, ["-D", data, "stop", "-m", "fast", "-w", "-t", "600"]),
        {
          stdio: "pipe",
        },
      );
      await exited;
      let total = 0;
      for (const file of readdirSync(out)) {
        const text = readFileSync(path.join(out, file), "utf8");
        total += Number(/^summary:\s+(\d+)/m.exec(text)?.[1] ?? 0);
      }
      if (process.env.DB_KEEP_CALLGRIND) console.info(`callgrind files kept in ${out}`);
      else rmSync(dir, { recursive: true, force: true });
      return total;
    },
  };
}

/** PostgreSQL's instructions for a start, AGENTS agents and `chats` echo chats of one build. */
async function countRun(root: string | undefined, chats: number): Promise<number> {
  const database = await postgresUnderCallgrind();
  try {
    await chatOn(database.url, root, chats);
  } catch (error) {
    await database.stop();
    throw error;
  }
  return database.stop();
}

async function chatOn(url: string, root: string | undefined, chats: number): Promise<void> {
  const env = {
    DATABASE_URL: url,
    WEB_CONCURRENCY: "1",
    SCHEDULER: "off",
    ...(process.env.DB_SERVICE_ENV ? JSON.parse(process.env.DB_SERVICE_ENV) : {}),
  };
  const server = (root ? await startServerIn(root, env) : await startServer(env)) as RunningServer;
  try {
    for (let i = 0; i < AGENTS; i++) {
      const made = await fetch(`${server.url}/agents`, {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({
          aid: `a${i}`,
          rate_limit_rpm: null,
          quota: { message_limit_daily: null, message_limit_monthly: null },
        }),
      });
      if (made.status !== 201) throw new Error(`POST /agents: ${made.status}`);
    }
    let next = 0;
    await Promise.all(
      Array.from({ length: CHATS_IN_FLIGHT }, async () => {
        while (next < chats) {
          const answer = await fetch(`${server.url}/a${next++ % AGENTS}/chat?q=hello`);
          if (answer.status !== 200) throw new Error(`a chat answered ${answer.status}`);
          await answer.arrayBuffer();
        }
      }),
    );
  } finally {
    // Stopping writes the request log's last rows: they are the chats' too.
    await server.stop();
  }
}

async function count(build: string, root: string | undefined): Promise<Counted> {
  const few = await countRun(root, CHATS);
  const many = await countRun(root, 3 * CHATS);
  return { build, instructions_per_chat: (many - few) / (2 * CHATS) };
}

/** This checkout's build, then DB_AGAINST's when set; each printed as it is counted. */
export async function runDatabaseInstructions(): Promise<Counted[]> {
  const builds: Array<[string, string | undefined]> = [["this checkout", undefined]];
  if (process.env.DB_AGAINST) builds.push([process.env.DB_AGAINST, process.env.DB_AGAINST]);
  const counted: Counted[] = [];
  for (const [name, root] of builds) {
    const run = await count(name, root);
    counted.push(run);
    console.info(
      `PostgreSQL instructions an echo chat, ${run.build}: ${(run.instructions_per_chat / 1000).toFixed(0)} k (callgrind, ${CHATS} and ${3 * CHATS} chats)`,
    );
  }
  const [first, second] = counted;
  if (first && second)
    console.info(
      `  this checkout against ${second.build}: ${(first.instructions_per_chat / second.instructions_per_chat).toFixed(3)}×`,
    );
  return counted;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runDatabaseInstructions();
}
