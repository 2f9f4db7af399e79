import type { Reporter, TestModule } from "vitest/node";

/**
 * Ends the run with one plain line, `vitest: N passed, N failed, N skipped`, that any CI can read,
 * after the figures tests reported with `annotate(message, "figure")` (the image's size).
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const figures: string[] = [];
    for (const module of testModules) {
      let failedTests = 0;
      for (const test of module.children.allTests()) {
        for (const annotation of test.annotations())
          if (annotation.type === "figure") figures.push(annotation.message);
        const state = test.result().state;
        if (state === "passed") counts.passed++;
        else if (state === "failed") failedTests++;
        else counts.skipped++;
      }
      counts.failed += failedTests;
      // A file that failed outside its tests (a beforeAll, an import) leaves them skipped: it
      // is a failure all the same.
      if (module.state() === "failed" && failedTests === 0) counts.failed++;
    }
    if (figures.length > 0) console.info(`\n${figures.join("\n")}`);
    console.info(
      `\nvitest: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`,
    );
  }
}
