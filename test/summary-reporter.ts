/**
 * Prints one plain closing line, `N passed, N failed, N skipped`, after vitest's own report, for
 * tools that read a test run's result from its last line. A test file that fails to load counts as
 * one failure.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      const tests = [...module.children.allTests()];
      if (tests.length === 0 && module.state() === 'failed') failed++;
      for (const test of tests) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
