/**
 * Prints one plain closing line, `N passed, N failed, N skipped`, after vitest's own report, for
 * tools that read a test run's result from its last line. A test file that fails to load, and each
 * file or suite whose hooks fail, counts as one failure: its tests are reported as skipped, and a
 * run with a failed `beforeAll` is red.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      let moduleFailures = module.errors().length > 0 ? 1 : 0;
      for (const suite of module.children.allSuites()) if (suite.errors().length > 0) moduleFailures++;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') moduleFailures++;
        else skipped++;
      }
      // A file vitest calls failed always counts, even when the failure is none of the above.
      failed += module.state() === 'failed' ? Math.max(moduleFailures, 1) : moduleFailures;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
