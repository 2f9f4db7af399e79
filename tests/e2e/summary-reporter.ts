import { existsSync, readFileSync } from "node:fs";
import type { FullResult, Reporter, TestCase, TestResult } from "@playwright/test/reporter";
import { serverLogFile } from "./global-setup";

/** How much of the server's log a failed run prints: its end, where the failure is. */
const LOG_TAIL_BYTES = 24 * 1024;

/** How much of each failed test's first error the last lines repeat. */
const ERROR_LINES = 12;

/**
 * Ends the run with one plain line, `playwright: N passed, N failed, N skipped`, that any CI can
 * read. After a failure it first prints the end of the server's log (the global teardown has
 * written it), then each failed test with the start of its error: a CI may keep only the end of
 * the output, and the list reporter's account of the failure is above the server's log.
 */
export default class SummaryReporter implements Reporter {
  private readonly outcomes = new Map<string, { test: TestCase; result: TestResult }>();

  onTestEnd(test: TestCase, result: TestResult) {
    this.outcomes.set(test.id, { test, result });
  }

  onEnd(_result: FullResult) {
    const outcomes = [...this.outcomes.values()];
    const passed = outcomes.filter((o) => o.result.status === "passed").length;
    const skipped = outcomes.filter((o) => o.result.status === "skipped").length;
    const failures = outcomes.filter((o) => !["passed", "skipped"].includes(o.result.status));
    if (failures.length > 0 && existsSync(serverLogFile)) {
      const log = readFileSync(serverLogFile, "utf8");
      const tail =
        log.length > LOG_TAIL_BYTES
          ? log.slice(log.indexOf("\n", log.length - LOG_TAIL_BYTES) + 1)
          : log;
      console.info(`\nThe end of the server's log (${serverLogFile}):\n${tail}`);
    }
    for (const { test, result } of failures) {
      const where = `${test.location.file.split("/tests/e2e/").pop()}:${test.location.line}`;
      const error = (result.error?.stack ?? result.error?.message ?? "no error recorded")
        .split("\n")
        .slice(0, ERROR_LINES)
        .join("\n");
      console.info(
        `\nfailed (${result.status}, ${result.duration} ms): ${where} › ${test.titlePath().slice(3).join(" › ")}\n${error}`,
      );
    }
    console.info(`\nplaywright: ${passed} passed, ${failures.length} failed, ${skipped} skipped`);
  }
}
