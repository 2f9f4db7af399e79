import type { FullResult, Reporter, TestCase, TestResult } from "@playwright/test/reporter";

/** Ends the run with one plain line, `playwright: N passed, N failed, N skipped`, that any CI can read. */
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
    console.info(`\nplaywright: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
