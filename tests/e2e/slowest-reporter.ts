/**
 * A Playwright reporter beside the list and HTML ones: when the run ends, the five spec files whose
 * tests took longest in all (Playwright's own `reportSlowTests` names only files that ran in one
 * worker, and this suite runs its tests in parallel), so whoever finds `npm test` slow sees where
 * the time goes. The vitest twin is tests/support/slowest-reporter.ts.
 */
import { relative } from "node:path";
import type { Reporter, TestCase, TestResult } from "@playwright/test/reporter";

const SHOWN = 5;

export default class SlowestReporter implements Reporter {
  private files = new Map<string, { ms: number; tests: number }>();

  printsToStdio(): boolean {
    return false;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const file = relative(process.cwd(), test.location.file);
    const entry = this.files.get(file) ?? { ms: 0, tests: 0 };
    entry.ms += result.duration;
    entry.tests += 1;
    this.files.set(file, entry);
  }

  onEnd(): void {
    if (this.files.size < 2) return;
    const lines = [...this.files]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, SHOWN)
      .map(
        ([file, { ms, tests }]) =>
          `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${String(tests).padStart(3)} tests  ${file}`,
      );
    process.stdout.write(
      `\nSlowest spec files (end-to-end, test time added up over the workers):\n${lines.join("\n")}\n`,
    );
  }
}
