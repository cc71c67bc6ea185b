/**
 * The order `vitest run` starts test files in: the longest first, whichever project they belong
 * to, so the two workers of a 2-core machine finish together.
 *
 * Vitest's own order runs the projects one after another by name (integration, local-stack, …,
 * tooling, unit), longest first within each. The tooling project's build of every content
 * collection (tests/tooling/content-build.test.ts, about a minute) then started last but one, and
 * ran alone for half a minute at the end while the other worker had nothing left.
 *
 * How long a file takes is vitest's record of its last run (node_modules/.vite/vitest) when every
 * file has one; on a fresh clone, as in CI, it is the file's size, as vitest's own fallback is, which
 * puts the long database and build files well before the short unit files. A file that failed last
 * time runs first, as in vitest's order.
 */
import { stat } from "node:fs/promises";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** What the order needs to know of a file. */
export interface FileEstimate {
  groupOrder: number;
  failed: boolean;
  /** Milliseconds of its last run, or its size in bytes when not every file has a last run. */
  weight: number;
}

/** The comparison: the group vitest runs first, then a file that failed, then the heavier. */
export function longestFirst(a: FileEstimate, b: FileEstimate): number {
  return a.groupOrder - b.groupOrder || Number(b.failed) - Number(a.failed) || b.weight - a.weight;
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const results = files.map((spec) => this.ctx.cache.getTestSpecificationResult(spec));
    const timed = results.every((result) => result !== undefined);
    const estimates = await Promise.all(
      files.map(async (spec, i) => ({
        spec,
        groupOrder: spec.project.config.sequence.groupOrder,
        failed: timed && !!results[i]!.failed,
        weight: timed ? results[i]!.duration : (await stat(spec.moduleId).catch(() => ({ size: 0 }))).size,
      })),
    );
    return estimates.sort(longestFirst).map(({ spec }) => spec);
  }
}
