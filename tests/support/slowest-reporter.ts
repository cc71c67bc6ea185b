/**
 * A vitest reporter beside the default one: when the run ends, the five test files that took
 * longest, so whoever finds `npm test` slow sees where the time goes (tests/e2e/slowest-reporter.ts
 * does the same for the end-to-end files).
 */
import type { Reporter, TestModule } from "vitest/node";

const SHOWN = 5;

export default class SlowestReporter implements Reporter {
  onTestRunEnd(modules: readonly TestModule[]): void {
    if (modules.length < 2) return;
    const timed = modules
      .map((module) => ({ module, ms: module.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SHOWN);
    const lines = timed.map(
      ({ module, ms }) =>
        `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${module.project.name}  ${module.relativeModuleId}`,
    );
    console.log(`\nSlowest test files (vitest):\n${lines.join("\n")}\n`);
  }
}
