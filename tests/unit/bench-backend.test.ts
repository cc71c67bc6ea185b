/** The backend bench's arithmetic and its table. */
import { describe, expect, it } from "vitest";
import { backendTable, percentile, summarize, throughput } from "../../scripts/bench/backend.mjs";

describe("backend bench", () => {
  it("takes percentiles by nearest rank", () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 95)).toBe(10);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile([], 50)).toBeNull();
  });

  it("summarizes latencies", () => {
    expect(summarize([12.34, 10, 30.06, 11])).toEqual({ n: 4, medianMs: 11, p95Ms: 30.1, minMs: 10, maxMs: 30.1 });
    expect(summarize([])).toEqual({ n: 0, medianMs: null, p95Ms: null, minMs: null, maxMs: null });
  });

  it("counts only successful answers in requests per second", () => {
    expect(throughput({ ok: 900, errors: 100, seconds: 3 })).toEqual({
      requests: 1000,
      errors: 100,
      seconds: 3,
      perSecond: 300,
    });
    expect(throughput({ ok: 0, errors: 0, seconds: 0 }).perSecond).toBeNull();
  });

  it("prints a row per backend, saying why one was skipped or failed", () => {
    const table = backendTable([
      {
        backend: "PGlite",
        roundTrip: { n: 20, medianMs: 110.6, p95Ms: 122.6 },
        select: {
          concurrency: 8,
          requests: 856,
          errors: 0,
          seconds: 3.02,
          perSecond: 283.3,
          latency: { medianMs: 26.3, p95Ms: 39.5 },
        },
      },
      { backend: "PostgreSQL", skipped: "PostgreSQL server binaries not found" },
      { backend: "Other", error: "sign-in failed: Invalid login credentials" },
    ]);
    const [, , pglite, postgres, other] = table.split("\n");
    expect(pglite).toMatch(
      /^PGlite\s+110\.6\s+122\.6\s+283\.3\s+26\.3\s+39\.5\s+0\s+20 round trips; 856 selects in 3\.02 s, 8 in flight$/,
    );
    expect(postgres).toContain("skipped: PostgreSQL server binaries not found");
    expect(other).toContain("FAILED: sign-in failed: Invalid login credentials");
  });
});
