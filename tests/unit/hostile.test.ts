/** The hostile-tries tally the test runs print (tests/support/hostile.ts). */
import { describe, expect, it } from "vitest";
import { addLines, summary, Tally } from "../support/hostile.ts";

describe("hostile tries", () => {
  it("adds up each target's lines across files and backends, and ignores other output", () => {
    const checkout = new Tally("checkout flood");
    checkout.count(false);
    checkout.count(false);
    const totals = new Map<string, { tried: number; accepted: number }>();
    addLines(totals, `${checkout.line()}\nsome other log line\n[PGlite] hostile oversize bodies: tried 2, accepted 0`);
    addLines(
      totals,
      "[PostgreSQL] hostile oversize bodies: tried 2, accepted 1\nhostile checkout bad requests: tried 10, accepted 0",
    );
    expect(Object.fromEntries(totals)).toEqual({
      "checkout flood": { tried: 2, accepted: 0 },
      "oversize bodies": { tried: 4, accepted: 1 },
      "checkout bad requests": { tried: 10, accepted: 0 },
    });
    expect(summary(totals, "Hostile tries:").split("\n")).toEqual([
      "Hostile tries:",
      "  target                  tried  accepted",
      "  checkout bad requests      10         0",
      "  checkout flood              2         0",
      "  oversize bodies             4         1",
      "  all                        16         1",
    ]);
  });

  it("prints nothing when no test counted any", () => {
    expect(summary(new Map(), "Hostile tries:")).toBe("");
  });
});
