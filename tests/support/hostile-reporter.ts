/**
 * A vitest reporter beside the default one: adds up the hostile tries the test files log
 * (./hostile.ts) and prints them per target when the run ends.
 */
import type { UserConsoleLog } from "vitest";
import type { Reporter } from "vitest/node";
import { addLines, summary } from "./hostile.ts";

export default class HostileReporter implements Reporter {
  private totals = new Map<string, { tried: number; accepted: number }>();

  onUserConsoleLog(log: UserConsoleLog): void {
    if (log.type === "stdout") addLines(this.totals, log.content.trimEnd());
  }

  onTestRunEnd(): void {
    const text = summary(this.totals, "Hostile tries (vitest), per target:");
    if (text) console.log(`\n${text}\n`);
  }
}
