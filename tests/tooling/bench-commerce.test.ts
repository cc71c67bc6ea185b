/** The commerce part of the bench (tools/bench/commerce.ts) judges its numbers as docs/architecture.md says. */
import { describe, expect, it } from "vitest";
import { checkCommerce } from "../../tools/bench/commerce.ts";

const result = (backend: string, p95Ms: number, perSecond: number, lost = 0, failed = 0) => ({
  backend,
  checkout: { n: 100, medianMs: p95Ms / 2, p95Ms },
  webhook: { events: 400, concurrency: 8, perSecond, lost, failed },
});
const status = (entries: { id: string; status: string }[]) => Object.fromEntries(entries.map((e) => [e.id, e.status]));

describe("checkCommerce", () => {
  it("passes numbers within the targets: p95 <= 50 ms, >= 150 events/s on PostgreSQL and >= 50 on PGlite, none lost", () => {
    expect(status(checkCommerce([result("PGlite", 12, 60), result("PostgreSQL", 14, 160)]))).toEqual({
      "checkout-p95": "PASS",
      "webhook-throughput": "PASS",
      "webhook-lost": "PASS",
    });
  });

  it("warns on a slow checkout or webhook, naming the backend", () => {
    const entries = checkCommerce([result("PGlite", 61, 40), result("PostgreSQL", 14, 160)]);
    expect(status(entries)).toMatchObject({ "checkout-p95": "WARN", "webhook-throughput": "WARN" });
    expect(entries.find((e) => e.id === "webhook-throughput")!.offenders).toEqual(["PGlite 40/s"]);
    const slowServer = checkCommerce([result("PGlite", 12, 60), result("PostgreSQL", 14, 140)]);
    expect(slowServer.find((e) => e.id === "webhook-throughput")!.offenders).toEqual(["PostgreSQL 140/s"]);
  });

  it("fails on a lost or failed event, or a backend that broke", () => {
    expect(status(checkCommerce([result("PGlite", 10, 80, 1)]))["webhook-lost"]).toBe("FAIL");
    expect(status(checkCommerce([result("PGlite", 10, 80, 0, 2)]))["webhook-lost"]).toBe("FAIL");
    expect(status(checkCommerce([{ backend: "PostgreSQL", error: "could not start" }]))["webhook-lost"]).toBe("FAIL");
  });
});
