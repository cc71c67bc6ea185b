/**
 * Hostile tries: what the tests throw at the product's gates (floods, oversize bodies, forged or
 * underpaid events, sessions planted in a URL, foreign Host headers) and how many got through.
 * Each test file counts its tries per target and logs one line per target,
 * `hostile <target>: tried N, accepted M`; the test runs' reporters (./hostile-reporter.ts for
 * vitest, tests/e2e/hostile-reporter.ts for Playwright) add the lines up and print a table at the
 * end of `npm test`. docs/performance.md (Reliability) carries the figures.
 */

/** One target's tally. */
export class Tally {
  tried = 0;
  accepted = 0;
  readonly target: string;
  constructor(target: string) {
    this.target = target;
  }

  /** Counts one try; `accepted`: whether it got through (a 2xx, a row written, a session taken). */
  count(accepted: boolean): void {
    this.tried++;
    if (accepted) this.accepted++;
  }

  /** The line the reporters read. */
  line(): string {
    return `hostile ${this.target}: tried ${this.tried}, accepted ${this.accepted}`;
  }
}

/** Logs each tally's line (a test file's afterAll). */
export function logTallies(...tallies: Tally[]): void {
  for (const tally of tallies) console.log(tally.line());
}

const LINE = /^(?:\[[^\]\n]*\] )?hostile (.+?): tried (\d+), accepted (\d+)$/gm;

/** Adds the hostile lines in `text` into `totals` (per target). */
export function addLines(totals: Map<string, { tried: number; accepted: number }>, text: string): void {
  for (const [, target, tried, accepted] of text.matchAll(LINE)) {
    const total = totals.get(target!) ?? { tried: 0, accepted: 0 };
    total.tried += Number(tried);
    total.accepted += Number(accepted);
    totals.set(target!, total);
  }
}

/** The summary the reporters print: one row per target, and the sum. */
export function summary(totals: Map<string, { tried: number; accepted: number }>, title: string): string {
  if (totals.size === 0) return "";
  const rows = [...totals].sort(([a], [b]) => a.localeCompare(b));
  const width = Math.max(...rows.map(([target]) => target.length), "all".length);
  const all = rows.reduce((sum, [, t]) => ({ tried: sum.tried + t.tried, accepted: sum.accepted + t.accepted }), {
    tried: 0,
    accepted: 0,
  });
  const row = (target: string, t: { tried: number; accepted: number }) =>
    `  ${target.padEnd(width)}  ${String(t.tried).padStart(6)}  ${String(t.accepted).padStart(8)}`;
  return [
    title,
    `  ${"target".padEnd(width)}  ${"tried".padStart(6)}  ${"accepted".padStart(8)}`,
    ...rows.map(([target, t]) => row(target, t)),
    row("all", all),
  ].join("\n");
}
