/**
 * A Playwright reporter beside the list and HTML ones: adds up the hostile tries the end-to-end
 * tests log (tests/support/hostile.ts) and prints them per target when the run ends.
 */
import type { Reporter } from "@playwright/test/reporter";
import { addLines, summary } from "../support/hostile.ts";

export default class HostileReporter implements Reporter {
  private totals = new Map<string, { tried: number; accepted: number }>();

  printsToStdio(): boolean {
    return false;
  }

  onStdOut(chunk: string | Buffer): void {
    addLines(this.totals, chunk.toString().trimEnd());
  }

  onEnd(): void {
    const text = summary(this.totals, "Hostile tries (end-to-end), per target:");
    if (text) process.stdout.write(`\n${text}\n`);
  }
}
