import { existsSync, readFileSync } from "node:fs";
import type { FullResult, Reporter, TestCase, TestResult } from "@playwright/test/reporter";
import { serverLogFile } from "./global-setup";

/** How much of the server's log a failed run prints: its end, where the failure is. */
const LOG_TAIL_BYTES = 24 * 1024;

/**
 * Ends the run with one plain line, `playwright: N passed, N failed, N skipped`, that any CI can
 * read; after a failure, first the end of the server's log (the global teardown has written it),
 * since a CI's output may be all that is kept of the run.
 */
export default class SummaryReporter implements Reporter {
  private readonly outcomes = new Map<string, TestResult["status"]>();

  onTestEnd(test: TestCase, result: TestResult) {
    this.outcomes.set(test.id, result.status);
  }

  onEnd(_result: FullResult) {
    const statuses = [...this.outcomes.values()];
    const passed = statuses.filter((s) => s === "passed").length;
    const skipped = statuses.filter((s) => s === "skipped").length;
    const failed = statuses.length - passed - skipped;
    if (failed > 0 && existsSync(serverLogFile)) {
      const log = readFileSync(serverLogFile, "utf8");
      const tail =
        log.length > LOG_TAIL_BYTES
          ? log.slice(log.indexOf("\n", log.length - LOG_TAIL_BYTES) + 1)
          : log;
      console.info(`\nThe end of the server's log (${serverLogFile}):\n${tail}`);
    }
    console.info(`\nplaywright: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
