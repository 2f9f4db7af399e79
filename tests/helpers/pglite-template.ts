import { createHash, randomBytes } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  openAsBlob,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";

/**
 * One migrated PGlite database, made once and copied for each test that needs a new one. A new
 * PGlite cluster is PostgreSQL's initdb run in WASM: a test database took 3.7-5.7 s to make and
 * migrate against 1.7-2.1 s loaded from the dump, and a test server on PGlite 7.1 s to start
 * against 2.7 s on a copied data directory (BENCHMARKS.md, 2026-11-27). The template is kept
 * under node_modules/.cache, named by a hash of the migrations and of PGlite's version, so that
 * a change to either makes a new one; the first process to need it makes it (others that race it
 * make their own and keep whichever lands first, each whole: a directory is renamed into place).
 *
 * Every test still runs on what the migrations make: the template is that, once. The service's
 * own first start on an empty data directory is still run by the tests that give it one
 * (tests/http/pglite-lock.test.ts, tests/reliability/chat-crash.test.ts).
 */

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const CACHE = path.join(ROOT, "node_modules", ".cache", "agent-service-tests");

type Template = { dataDir: string; dump: string };

function templateName(): string {
  const hash = createHash("sha256");
  const migrations = path.join(ROOT, "db", "migrations");
  for (const file of readdirSync(migrations, { recursive: true }).map(String).sort()) {
    const full = path.join(migrations, file);
    if (statSync(full).isFile()) hash.update(file).update(readFileSync(full));
  }
  hash.update(
    readFileSync(path.join(ROOT, "node_modules", "@electric-sql", "pglite", "package.json")),
  );
  return `pglite-${hash.digest("hex").slice(0, 16)}`;
}

let made: Promise<Template> | undefined;

/** The template's data directory and dump, made if this checkout has none yet. */
export function pgliteTemplate(): Promise<Template> {
  made ??= makeTemplate();
  return made;
}

async function makeTemplate(): Promise<Template> {
  const final = path.join(CACHE, templateName());
  const template = { dataDir: path.join(final, "data"), dump: path.join(final, "dump.tar") };
  if (existsSync(template.dump)) return template;
  const work = `${final}.${process.pid}.${randomBytes(4).toString("hex")}`;
  mkdirSync(work, { recursive: true });
  try {
    // Loaded only to make it: the helpers that copy it (server.ts) stay light to import.
    const { createDatabase } = await import("@/db/client");
    const onDisk = createDatabase({ kind: "pglite", dataDir: path.join(work, "data") });
    try {
      await onDisk.migrate();
    } finally {
      await onDisk.close();
    }
    // The dump is of an in-memory database, as the databases made from it are.
    const inMemory = createDatabase({ kind: "pglite" });
    try {
      await inMemory.migrate();
      const client = (inMemory.db as unknown as { $client: PGlite }).$client;
      const dump = await client.dumpDataDir("none");
      writeFileSync(path.join(work, "dump.tar"), Buffer.from(await dump.arrayBuffer()));
    } finally {
      await inMemory.close();
    }
    // The data directory's lock (db/pglite-lock.ts) sits beside it; it is not the template's.
    rmSync(path.join(work, "data.lock"), { recursive: true, force: true });
    try {
      renameSync(work, final);
    } catch (error) {
      // Another process put its own in place first: it is the same, use that one.
      if (!existsSync(template.dump)) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return template;
}

let dump: Promise<Blob> | undefined;

/** The template's dump, for `createDatabase({ kind: "pglite", loadDataDir })`. */
export function pgliteTemplateDump(): Promise<Blob> {
  dump ??= pgliteTemplate().then((template) => openAsBlob(template.dump));
  return dump;
}

/** Copies the template's data directory to `dataDir` (which must not exist yet). */
export async function copyPgliteTemplate(dataDir: string): Promise<void> {
  cpSync((await pgliteTemplate()).dataDir, dataDir, { recursive: true });
}
