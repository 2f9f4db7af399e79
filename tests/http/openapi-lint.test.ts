import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type RunningServer, startServer } from "../helpers/server";

/**
 * The document GET /openapi.json serves, linted by Redocly CLI with its recommended rules
 * (redocly.yaml says which are off, and why): no error and no warning.
 */

type LintProblem = {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer: string }[];
};

const redocly = path.resolve("node_modules", ".bin", "redocly");

describe("the served OpenAPI document, linted by Redocly CLI", () => {
  let server: RunningServer;
  let dir: string;

  beforeAll(async () => {
    // PUBLIC_URL is the document's server: here the address the test reaches, as a deployment's
    // own URL would be (the default, localhost, is a development value the rules warn about).
    const port = await freePort();
    server = await startServer({ PUBLIC_URL: `http://127.0.0.1:${port}` }, { port });
    dir = await mkdtemp(path.join(tmpdir(), "openapi-lint-"));
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("has no problem", async () => {
    const response = await fetch(`${server.url}/openapi.json`);
    expect(response.status).toBe(200);
    const file = path.join(dir, "openapi.json");
    await writeFile(file, await response.text());

    // No network: telemetry and the update check are off (only the npm registry is reachable).
    const run = await promisify(execFile)(
      redocly,
      ["lint", file, "--config", "redocly.yaml", "--format=json"],
      {
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
        maxBuffer: 16 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      // It exits 1 when it finds errors; its report is on stdout all the same.
      if (!error.stdout) throw error;
      return { stdout: error.stdout, stderr: error.stderr ?? "" };
    });
    const report = JSON.parse(run.stdout) as { problems: LintProblem[] };
    const readable = report.problems.map(
      (p) =>
        `${p.severity} ${p.ruleId} at ${p.location.map((l) => l.pointer).join(", ")}: ${p.message}`,
    );
    expect(readable).toEqual([]);
  });
});
