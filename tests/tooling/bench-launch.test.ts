/** The launch-day spike's verdict (tools/bench/launch.ts): a lost order fails, a refused checkout warns. */
import { describe, expect, it } from "vitest";
import { checkLaunch, launchTable, spikeStats } from "../../tools/bench/launch.ts";

const side = (errors = 0) => ({ requests: 500, perSecond: 50, p50Ms: 60, p95Ms: 100, p99Ms: 150, errors });
const result = (backend: string, lost: number, checkoutErrors = 0) => ({
  backend,
  seconds: 10,
  checkout: side(checkoutErrors),
  webhook: { ...side(3), duplicates: 60, outOfOrder: 70, retried: 3, unanswered: 0 },
  orders: { expected: 360, recorded: 360 - lost, lost },
});
const status = (entries: { id: string; status: string }[]) => Object.fromEntries(entries.map((e) => [e.id, e.status]));

describe("the launch spike", () => {
  it("passes when every paid session has its order, whatever the webhook's errors during the spike", () => {
    expect(status(checkLaunch([result("PGlite", 0), result("PostgreSQL", 0)]))).toEqual({
      "launch-lost": "PASS",
      "launch-checkout-errors": "PASS",
    });
  });

  it("fails on one lost order or a backend that broke, and warns on a refused checkout", () => {
    const lost = checkLaunch([result("PGlite", 0), result("PostgreSQL", 1)]);
    expect(status(lost)["launch-lost"]).toBe("FAIL");
    expect(lost.find((e) => e.id === "launch-lost")!.offenders).toEqual(["PostgreSQL: 1 lost of 360"]);
    expect(status(checkLaunch([{ backend: "PostgreSQL", error: "could not start" }]))["launch-lost"]).toBe("FAIL");
    expect(status(checkLaunch([result("PGlite", 0, 2)]))["launch-checkout-errors"]).toBe("WARN");
  });

  it("reports requests per second and p50/p95/p99 over the spike, and a table row per side", () => {
    const latencies = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(spikeStats(latencies, 2, 4)).toEqual({
      requests: 100,
      perSecond: 25,
      p50Ms: 50,
      p95Ms: 95,
      p99Ms: 99,
      errors: 2,
    });
    const table = launchTable([result("PGlite", 0), { backend: "PostgreSQL", skipped: "no server binaries" }]);
    expect(table).toContain("360 buyers, 0 lost; 60 duplicates, 70 out of order; 3 retried after");
    expect(table).toContain("skipped: no server binaries");
  });
});
