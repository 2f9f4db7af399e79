import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CONTAINER_TOOLS, onPath, podman, runCommand } from "../helpers/containers";
import { createThrowawayPostgres, TEST_DATABASE_URL } from "../helpers/database-kinds";
import { type FakeOpenAi, startFakeOpenAi } from "../helpers/fake-openai";
import { haproxyInstalled, type RunningBalancer, startBalancer } from "../helpers/haproxy";
import { processTree, readProc } from "../helpers/processes";
import { freePort, TEST_ADMIN_KEY } from "../helpers/server";

/**
 * deploy/Dockerfile built unchanged from the checkout (a clean clone in CI) with buildah, on a
 * local stand-in for the official node image (tests/helpers/stand-in-base-image.sh: these
 * machines have no registry), then run as deploy/compose.yaml runs it: two containers on one
 * PostgreSQL behind HAProxy with deploy/haproxy.cfg, and compose.yaml's worker command beside
 * them. Containers share the host's network, each on its own port.
 */

// Each bound is a few times what the step took on this project's two shared cores.
const STAND_IN_MS = 600_000;
const BUILD_MS = 1_200_000;
const START_MS = 120_000;
const PODMAN_MS = 60_000;
const REMOVE_IMAGE_MS = 180_000;
const REQUEST_MS = 30_000;

const admin = { authorization: `Bearer ${TEST_ADMIN_KEY}`, "content-type": "application/json" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const megabytes = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;

const missing = CONTAINER_TOOLS.filter((tool) => !onPath(tool));
const unable =
  missing.length > 0
    ? `${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not installed (apt-get install ${CONTAINER_TOOLS.join(" ")})`
    : process.getuid?.() !== 0
      ? "it needs root (debootstrap and chroot for the stand-in base image, podman's storage), and this process is not root"
      : undefined;
// CI has the tools (.ci/run installs them): there their absence is a failure, not a skip.
if (unable && process.env.CI) throw new Error(`The image cannot be built and run: ${unable}.`);
if (unable) console.warn(`The image test is skipped: ${unable}.`);
if (!unable && TEST_DATABASE_URL && !haproxyInstalled)
  throw new Error("HAProxy is not installed (/usr/sbin/haproxy): `apt-get install haproxy`.");

describe.skipIf(unable !== undefined || !TEST_DATABASE_URL)(
  "deploy/Dockerfile, built and run behind HAProxy on PostgreSQL",
  () => {
    const startedAt = Date.now();
    const run = randomBytes(4).toString("hex");
    const tag = `localhost/agent-service-test:${run}`;
    const names = {
      app1: `agent-service-test-${run}-app1`,
      app2: `agent-service-test-${run}-app2`,
      worker: `agent-service-test-${run}-worker`,
    };
    const ports = { app1: 0, app2: 0 };
    const figures: string[] = [];
    const started: string[] = [];
    let built = false;
    let buildahBefore: string[] = [];
    let fake: FakeOpenAi;
    let database: { url: string; drop(): Promise<void> };
    let balancer: RunningBalancer;

    const nodeVersion = readFileSync(".node-version", "utf8").trim();
    const baseImage = `docker.io/library/node:${nodeVersion}-bookworm-slim`;
    const buildahContainers = async () =>
      (await runCommand("buildah", ["containers", "--quiet"], { timeoutMs: PODMAN_MS })).stdout
        .split("\n")
        .filter(Boolean);
    const inspect = async (what: "image" | "container", name: string, format: string) =>
      (await podman([what, "inspect", "--format", format, name], PODMAN_MS)).stdout.trim();

    beforeAll(
      async () => {
        // The Dockerfile names its base by its own NODE_VERSION: the stand-in is made for
        // .node-version's, and --pull=never finds no other.
        const dockerfile = readFileSync(path.join("deploy", "Dockerfile"), "utf8");
        expect(/^ARG NODE_VERSION=(.+)$/m.exec(dockerfile)?.[1]).toBe(nodeVersion);

        let at = Date.now();
        const standIn = await runCommand(
          path.resolve("tests", "helpers", "stand-in-base-image.sh"),
          [],
          { timeoutMs: STAND_IN_MS },
        );
        figures.push(`stand-in base image: ${seconds(Date.now() - at)} (${standIn.stdout.trim()})`);

        buildahBefore = await buildahContainers();
        at = Date.now();
        await runCommand(
          "buildah",
          [
            "build",
            "--isolation",
            "chroot",
            "--pull=never",
            // Docker's own format: OCI's has no HEALTHCHECK.
            "--format",
            "docker",
            "--file",
            path.join("deploy", "Dockerfile"),
            "--tag",
            tag,
            ".",
          ],
          { timeoutMs: BUILD_MS },
        );
        built = true;
        figures.push(`build: ${seconds(Date.now() - at)}`);
      },
      STAND_IN_MS + BUILD_MS + 2 * PODMAN_MS,
    );

    beforeAll(
      async () => {
        fake = await startFakeOpenAi();
        fake.behave({ kind: "reply", text: "Hello from a container." });
        database = await createThrowawayPostgres();
        ports.app1 = await freePort();
        ports.app2 = await freePort();
        const env = {
          DATABASE_URL: database.url,
          ADMIN_API_KEY: TEST_ADMIN_KEY,
          // HAProxy is the one proxy in front, as in compose.yaml.
          TRUST_PROXY: "1",
          // Two web workers each: the cluster inside the container, on two cores.
          WEB_CONCURRENCY: "2",
          DATABASE_POOL_SIZE: "5",
          // The host's network: listen on loopback only.
          HOST: "127.0.0.1",
          LLM_BASE_URL: fake.baseUrl,
          LLM_API_KEY: "sk-test",
          LLM_MAX_RETRIES: "0",
          SCHEDULER: "off",
        };
        const start = async (
          name: string,
          vars: Record<string, string>,
          command: string[] = [],
        ) => {
          started.push(name);
          await podman(
            [
              "run",
              "--detach",
              "--name",
              name,
              "--network",
              "host",
              ...Object.entries(vars).flatMap(([key, value]) => ["--env", `${key}=${value}`]),
              tag,
              ...command,
            ],
            PODMAN_MS,
          );
        };
        // The worker as compose.yaml runs it: its command, the schedule on.
        const compose = readFileSync(path.join("deploy", "compose.yaml"), "utf8");
        const workerCommand = JSON.parse(/^\s+command:\s*(\[.*\])\s*$/m.exec(compose)?.[1] ?? "[]");
        expect(workerCommand.length).toBeGreaterThan(0);

        const at = Date.now();
        await start(names.app1, { ...env, PORT: String(ports.app1) });
        await start(names.app2, { ...env, PORT: String(ports.app2) });
        await start(
          names.worker,
          { ...env, SCHEDULER: "on", SCHEDULER_TICK_MS: "200" },
          workerCommand,
        );

        const deadline = Date.now() + START_MS;
        const running = async (name: string) => {
          if ((await inspect("container", name, "{{.State.Running}}")) !== "true") {
            const logs = await podman(["logs", "--tail", "40", name], PODMAN_MS, true);
            throw new Error(`${name} exited:\n${logs.stdout}${logs.stderr}`);
          }
        };
        for (const port of [ports.app1, ports.app2]) {
          for (let i = 0; ; i++) {
            const status = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
              (response) => response.status,
              () => 0,
            );
            if (status === 200) break;
            if (Date.now() > deadline) throw new Error(`port ${port} not ready in ${START_MS} ms`);
            if (i % 10 === 0) for (const name of started) await running(name);
            await sleep(200);
          }
        }
        for (;;) {
          const logs = await podman(["logs", names.worker], PODMAN_MS);
          if (`${logs.stdout}${logs.stderr}`.includes("scheduler on")) break;
          if (Date.now() > deadline) throw new Error(`the worker did not start in ${START_MS} ms`);
          await running(names.worker);
          await sleep(500);
        }
        figures.push(`containers ready: ${seconds(Date.now() - at)}`);
        balancer = await startBalancer(
          `http://127.0.0.1:${ports.app1}`,
          `http://127.0.0.1:${ports.app2}`,
        );
      },
      START_MS + 4 * PODMAN_MS,
    );

    afterEach(async ({ task }) => {
      if (task.result?.state !== "fail") return;
      for (const name of started) {
        const logs = await podman(["logs", "--tail", "30", name], PODMAN_MS, true);
        console.info(`${name}:\n${logs.stdout}${logs.stderr}`);
      }
    }, 3 * PODMAN_MS);

    afterAll(
      async () => {
        // Every step is tried whatever failed before it; the first failure is thrown at the end.
        const failures: unknown[] = [];
        const attempt = async (step: () => Promise<unknown> | undefined) => {
          try {
            await step();
          } catch (error) {
            failures.push(error);
          }
        };
        await attempt(() => balancer?.stop());
        // Each with the anonymous volume the image's VOLUME /data gave it.
        for (const name of started)
          await attempt(() =>
            podman(["rm", "--force", "--volumes", "--time", "10", name], PODMAN_MS),
          );
        await attempt(async () => {
          // A build stopped half-way leaves its working containers behind.
          if (built) return;
          for (const id of await buildahContainers())
            if (!buildahBefore.includes(id))
              await runCommand("buildah", ["rm", id], { timeoutMs: PODMAN_MS });
        });
        await attempt(async () => {
          if ((await podman(["image", "exists", tag], PODMAN_MS, true)).code === 0)
            await podman(["rmi", "--force", tag], REMOVE_IMAGE_MS);
        });
        await attempt(() => fake?.close());
        await attempt(() => database?.drop());
        figures.push(`the whole test: ${seconds(Date.now() - startedAt)}`);
        console.info(figures.map((line) => `image test: ${line}`).join("\n"));
        if (failures.length > 0) throw failures[0];
      },
      3 * PODMAN_MS + REMOVE_IMAGE_MS + PODMAN_MS,
    );

    it("is built from the checkout as a non-root image with its health check, and reports its size", async ({
      annotate,
    }) => {
      expect(await inspect("image", tag, "{{.Config.User}}")).toBe("node");
      expect(JSON.parse(await inspect("image", tag, "{{json .Config.Healthcheck}}"))).toMatchObject(
        {
          Test: ["CMD", "node", "-e", expect.stringContaining("/health/live")],
        },
      );
      const size = Number(await inspect("image", tag, "{{.Size}}"));
      const base = Number(await inspect("image", baseImage, "{{.Size}}"));
      const line = `${megabytes(size)}: the service's layers ${megabytes(size - base)} on the base's ${megabytes(base)} (a stand-in here)`;
      console.info(`image size: ${line}`);
      await annotate(`image size: ${line}`, "figure");
      figures.push(`size: ${line}`);
    });

    it("is ready through the balancer, serves pages, and answers a chat from the provider", async () => {
      const get = (path: string, headers: Record<string, string> = {}) =>
        fetch(`${balancer.url}${path}`, { headers, signal: AbortSignal.timeout(REQUEST_MS) });
      expect((await get("/health/ready")).status).toBe(200);
      const created = await fetch(`${balancer.url}/agents`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ aid: "boxed", rate_limit_rpm: null }),
        signal: AbortSignal.timeout(REQUEST_MS),
      });
      expect(created.status).toBe(201);
      const chat = await get("/boxed/chat?q=hello");
      expect(chat.status).toBe(200);
      expect(await chat.text()).toBe("Hello from a container.");
      // A page rendered by Next.js, and the API reference's assets read from node_modules.
      const dashboard = await get("/dashboard", { accept: "text/html" });
      expect(dashboard.status).toBe(200);
      expect(dashboard.headers.get("content-type")).toMatch(/^text\/html/);
      expect((await get("/docs")).status).toBe(200);
    });

    it("runs an autonomous prompt in compose.yaml's worker, and on run now in an instance", async () => {
      fake.behave({ kind: "reply", text: "Ran in a container." });
      const created = await fetch(`${balancer.url}/agents`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({
          aid: "boxed-diarist",
          autonomous_enabled: true,
          autonomous_minutes: 60,
          autonomous_prompt: "Summarise the day.",
        }),
        signal: AbortSignal.timeout(REQUEST_MS),
      });
      expect(created.status).toBe(201);
      type Run = { outcome: string; reply: string | null };
      const runs = async (): Promise<Run[]> => {
        const response = await fetch(`${balancer.url}/agents/boxed-diarist/runs`, {
          headers: admin,
          signal: AbortSignal.timeout(REQUEST_MS),
        });
        expect(response.status).toBe(200);
        return (await response.json()).runs;
      };
      // Enabling makes the first run due at once: the worker's scheduler takes it (the
      // instances run with SCHEDULER=off).
      const deadline = Date.now() + REQUEST_MS;
      let scheduled: Run[] = [];
      while (!scheduled.some((r) => r.outcome !== "running") && Date.now() < deadline) {
        scheduled = await runs();
        await sleep(200);
      }
      expect(scheduled).toEqual([
        expect.objectContaining({ outcome: "succeeded", reply: "Ran in a container." }),
      ]);
      const now = await fetch(`${balancer.url}/agents/boxed-diarist/runs`, {
        method: "POST",
        headers: admin,
        signal: AbortSignal.timeout(REQUEST_MS),
      });
      expect(now.status).toBe(202);
      expect(await now.json()).toMatchObject({
        outcome: "succeeded",
        reply: "Ran in a container.",
      });
      expect((await runs()).map((r) => r.outcome)).toEqual(["succeeded", "succeeded"]);
    });

    it("runs every process of the service as the image's user, not root", async () => {
      for (const name of Object.values(names)) {
        expect((await podman(["exec", name, "id", "-u"], PODMAN_MS)).stdout.trim(), name).toBe(
          "1000",
        );
        // Read from the host: PID 1 of the container and all it started (the web workers;
        // tsx's own node process in the worker). No user namespace: its uid is the host's.
        const pid = Number(await inspect("container", name, "{{.State.Pid}}"));
        const tree = processTree(pid);
        expect(tree.length, name).toBeGreaterThanOrEqual(name === names.worker ? 2 : 3);
        for (const each of tree) {
          const uids = /^Uid:\s+(.+)$/m.exec(readProc(each, "status") ?? "")?.[1]?.split(/\s+/);
          expect(uids, `${name}: process ${each}`).toEqual(["1000", "1000", "1000", "1000"]);
        }
      }
      // The image's HEALTHCHECK, run as the engine runs it.
      for (const name of [names.app1, names.app2])
        expect((await podman(["healthcheck", "run", name], PODMAN_MS, true)).code, name).toBe(0);
    });

    it("stops cleanly on SIGTERM (podman stop), the service being PID 1", async () => {
      for (const name of Object.values(names)) {
        await podman(["stop", "--time", "30", name], PODMAN_MS);
        expect(await inspect("container", name, "{{.State.ExitCode}}"), name).toBe("0");
      }
    });
  },
);
