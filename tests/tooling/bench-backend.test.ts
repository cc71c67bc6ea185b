/** The backend bench's arithmetic, answer checks, result shaping and table. */
import { describe, expect, it } from "vitest";
import {
  backendFailed,
  backendResult,
  backendTable,
  percentile,
  portalProblem,
  selectProblem,
  startProblem,
  summarize,
  tallySelects,
  throughput,
} from "../../tools/bench/backend.ts";

const expected = { email: "demo@example.com", orders: 2, fullName: "Dana Whitaker" };
const portal = (overrides: Record<string, unknown> = {}) => ({
  user: { data: { user: { id: "u1", email: "demo@example.com" } }, error: null },
  orders: {
    status: 200,
    error: null,
    data: [{ order_date: "2026-11-22T10:00:00Z" }, { order_date: "2026-10-13T10:00:00Z" }],
  },
  profile: { status: 200, error: null, data: { id: "u1", full_name: "Dana Whitaker" } },
  ...overrides,
});

describe("backend bench", () => {
  it("takes percentiles by nearest rank", () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 95)).toBe(10);
    expect(percentile(values, 90)).toBe(9);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNull();
    expect(values).toEqual([5, 1, 4, 2, 3, 10, 9, 8, 7, 6]);
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
    expect(throughput({ ok: 1184, errors: 0, seconds: 3.0157 })).toEqual({
      requests: 1184,
      errors: 0,
      seconds: 3.02,
      perSecond: 392.6,
    });
    expect(throughput({ ok: 0, errors: 0, seconds: 0 }).perSecond).toBeNull();
  });

  it("accepts the demo customer's portal answers and names what is wrong otherwise", () => {
    expect(portalProblem(portal(), expected)).toBeNull();
    expect(portalProblem(portal({ user: { data: { user: null }, error: { message: "bad jwt" } } }), expected)).toBe(
      "get user: bad jwt",
    );
    expect(
      portalProblem(portal({ orders: { status: 501, error: { message: "Not implemented" }, data: null } }), expected),
    ).toBe("orders: 501 Not implemented");
    expect(portalProblem(portal({ orders: { status: 200, error: null, data: [] } }), expected)).toBe(
      "orders: expected 2 rows, got 0",
    );
    const oldestFirst = { status: 200, error: null, data: [...portal().orders.data].reverse() };
    expect(portalProblem(portal({ orders: oldestFirst }), expected)).toBe("orders: not newest first by order_date");
    expect(portalProblem(portal({ profile: { status: 200, error: null, data: null } }), expected)).toBe(
      "profile: expected full_name Dana Whitaker, got no row",
    );
    expect(
      portalProblem(portal({ user: { data: { user: { id: "u2", email: "x@example.com" } }, error: null } }), expected),
    ).toBe("get user: expected demo@example.com, got x@example.com");
  });

  it("counts a select as failed unless it is 2xx with the expected rows", () => {
    expect(selectProblem({ status: 200, error: null, data: [{}, {}] }, 2)).toBeNull();
    expect(selectProblem({ status: 206, error: null, data: [{}, {}] }, 2)).toBeNull();
    expect(selectProblem({ status: 501, error: { message: "Not implemented" }, data: null }, 2)).toBe(
      "501 Not implemented",
    );
    expect(selectProblem({ status: 200, error: null, data: [] }, 2)).toBe("200 but 0 rows");
    expect(selectProblem({ status: 404, error: null, data: null }, 2)).toBe("404 error");
    expect(selectProblem({ thrown: new Error("fetch failed") }, 2)).toBe("threw fetch failed");
  });

  it("tallies outcomes by status and keeps the first distinct problems", () => {
    const ok = { status: 200, problem: null };
    const notImplemented = { status: 501, problem: "501 Not implemented" };
    expect(
      tallySelects([ok, notImplemented, ok, notImplemented, { status: undefined, problem: "threw fetch failed" }]),
    ).toEqual({
      ok: 2,
      errors: 3,
      statuses: { 200: 2, 501: 2, none: 1 },
      problems: ["501 Not implemented", "threw fetch failed"],
    });
  });

  it("shapes a backend's result, failing it when a select failed", () => {
    const clean = backendResult({
      backend: "PGlite",
      trips: [100, 110, 120, 130],
      load: { latencies: [10, 20, 30], ok: 3, errors: 0, seconds: 3, statuses: { 200: 3 }, problems: [] },
      concurrency: 8,
    });
    expect(clean).toEqual({
      backend: "PGlite",
      roundTrip: { n: 4, medianMs: 110, p95Ms: 130, minMs: 100, maxMs: 130 },
      select: {
        concurrency: 8,
        requests: 3,
        errors: 0,
        seconds: 3,
        perSecond: 1,
        latency: { n: 3, medianMs: 20, p95Ms: 30, minMs: 10, maxMs: 30 },
        statuses: { 200: 3 },
      },
    });
    expect(backendFailed([clean])).toBe(false);

    const broken = backendResult({
      backend: "PostgreSQL",
      trips: [100],
      load: {
        latencies: [1, 2, 3, 4],
        ok: 1,
        errors: 3,
        seconds: 2,
        statuses: { 200: 1, 501: 3 },
        problems: ["501 Not implemented"],
      },
      concurrency: 8,
    });
    expect(broken).toMatchObject({
      error: "3 of 4 selects failed (501 Not implemented)",
      select: { perSecond: 0.5, problems: ["501 Not implemented"] },
    });
    expect(backendFailed([clean, broken])).toBe(true);
  });

  it("skips a backend without server binaries and fails one that cannot start for another reason", () => {
    const missing = new Error("PostgreSQL server binaries not found: apt-get install postgresql, or set PG_BIN");
    expect(startProblem("PostgreSQL", missing)).toEqual({
      backend: "PostgreSQL",
      skipped: "PostgreSQL server binaries not found: apt-get install postgresql, or set PG_BIN",
    });
    expect(startProblem("PostgreSQL", new Error("initdb: could not create directory"))).toEqual({
      backend: "PostgreSQL",
      error: "could not start: initdb: could not create directory",
    });
    const noInitdb = Object.assign(new Error("spawnSync /opt/pg/bin/initdb ENOENT"), { code: "ENOENT" });
    expect(startProblem("PostgreSQL", noInitdb)).toEqual({
      backend: "PostgreSQL",
      skipped: "spawnSync /opt/pg/bin/initdb ENOENT",
    });
    expect(backendFailed([startProblem("PostgreSQL", missing)])).toBe(false);
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
      { backend: "Multi", error: "could not start: Command failed: initdb\ninitdb: No such file or directory\n" },
      {
        backend: "Broken",
        roundTrip: { n: 20, medianMs: 90, p95Ms: 95 },
        select: {
          concurrency: 8,
          requests: 100,
          errors: 100,
          seconds: 3,
          perSecond: 0,
          latency: { medianMs: 2, p95Ms: 3 },
        },
        error: "100 of 100 selects failed (501 Not implemented)",
      },
    ]);
    const [header, rule, pglite, postgres, other, multi, broken] = table.split("\n");
    expect(header).toMatch(/^backend\s+sign-in\+portal median ms\s+p95 ms\s+select req\/s/);
    expect(rule).toMatch(/^-+ {2}-+/);
    expect(pglite).toMatch(
      /^PGlite\s+110\.6\s+122\.6\s+283\.3\s+26\.3\s+39\.5\s+0\s+20 round trips; 856 selects in 3\.02 s, 8 in flight$/,
    );
    expect(postgres).toContain("skipped: PostgreSQL server binaries not found");
    expect(other).toMatch(/^Other\s+-\s+-\s+-\s+-\s+-\s+-\s+FAILED: sign-in failed: Invalid login credentials$/);
    expect(multi).toMatch(/FAILED: could not start: Command failed: initdb \| initdb: No such file or directory$/);
    expect(broken).toMatch(
      /^Broken\s+90\s+95\s+0\s+2\s+3\s+100\s+FAILED: 100 of 100 selects failed \(501 Not implemented\)$/,
    );
  });
});
