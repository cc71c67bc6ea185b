/**
 * The order vitest starts files in (tests/support/longest-first.ts): the longest first across
 * projects, so `npm test` never ends on one worker running a long file alone.
 */
import { describe, expect, it } from "vitest";
import { type FileEstimate, longestFirst } from "../support/longest-first";

const file = (name: string, weight: number, extra: Partial<FileEstimate> = {}) => ({
  name,
  groupOrder: 0,
  failed: false,
  weight,
  ...extra,
});

const order = (files: ReturnType<typeof file>[]) => [...files].sort(longestFirst).map(({ name }) => name);

describe("the order test files start in", () => {
  it("starts the heaviest first, whatever its project's name", () => {
    expect(
      order([
        file("integration/leads", 15_000),
        file("tooling/content-build", 63_000),
        file("unit/lead", 40),
        file("local-stack/auth", 40_000),
      ]),
    ).toEqual(["tooling/content-build", "local-stack/auth", "integration/leads", "unit/lead"]);
  });

  it("starts a file that failed last time before heavier ones, as vitest's order does", () => {
    expect(order([file("a", 60_000), file("b", 10, { failed: true })])).toEqual(["b", "a"]);
  });

  it("keeps a project's sequence.groupOrder ahead of weight", () => {
    expect(order([file("later", 60_000, { groupOrder: 1 }), file("first", 10)])).toEqual(["first", "later"]);
  });
});
