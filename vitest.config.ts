import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = { "@": path.resolve(import.meta.dirname) };

/**
 * Unit, integration and HTTP files run two at a time, whatever the machine's cores: each file has
 * databases, servers and ports of its own (tests/helpers/databases.ts, server.ts), and most of
 * a file's time is spent waiting on PostgreSQL or a server it started, so two overlap well even
 * on two cores (vitest's default there is one). The reliability files then run one at a time,
 * after the others: they load the machine on purpose (kill -9, restarts, a soak at a set rate)
 * and their figures are read as one process's. The image test comes last, alone: it builds
 * deploy/Dockerfile (minutes of both cores) and needs no build of the service on this machine.
 * `npm test` leaves it out here and runs it beside the browser tests (scripts/test-last.mjs).
 */
const sideBySide = { maxWorkers: 2, sequence: { groupOrder: 0 } };
const alone = { maxWorkers: 1, sequence: { groupOrder: 1 } };
const last = { maxWorkers: 1, sequence: { groupOrder: 2 } };

export default defineConfig({
  resolve: { alias },
  test: {
    reporters: ["default", "./tests/helpers/summary-reporter.ts"],
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
          ...sideBySide,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          ...sideBySide,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "http",
          include: ["tests/http/**/*.test.ts"],
          environment: "node",
          ...sideBySide,
          globalSetup: ["tests/helpers/require-build.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "reliability",
          include: ["tests/reliability/**/*.test.ts"],
          environment: "node",
          ...alone,
          globalSetup: ["tests/helpers/require-build.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "image",
          include: ["tests/image/**/*.test.ts"],
          environment: "node",
          ...last,
          // Each long step has its own bound in the file (building takes minutes).
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
