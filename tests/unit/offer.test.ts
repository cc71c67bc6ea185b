import { describe, expect, it } from "vitest";
import { formatCents } from "../../packages/shared/money.ts";
import { offerTotals } from "../../src/lib/offer";

const dollars = (n: number) => ({ valueCents: n * 100 });

describe("offer totals", () => {
  it("computes the Growth Mindset offer: $15,340 of value for $3,995, save 74%", () => {
    const totals = offerTotals([dollars(9500), dollars(995), dollars(2500), dollars(750), dollars(1595)], 399_500);
    expect(formatCents(totals.totalCents)).toBe("$15,340");
    expect(totals.savingsPercent).toBe(74);
    expect(totals.monthlyTotalCents).toBe(0);
  });

  it("computes the flagship offer from its components, monthly value apart", () => {
    const totals = offerTotals(
      [
        dollars(25_970),
        dollars(5970),
        dollars(10_970),
        { monthlyValueCents: 75_000 },
        dollars(1595),
        dollars(1995),
        dollars(9970),
      ],
      3_500_000,
    );
    expect(formatCents(totals.totalCents)).toBe("$56,470");
    expect(formatCents(totals.monthlyTotalCents)).toBe("$750");
    expect(totals.savingsPercent).toBe(38);
  });

  it("never claims a negative saving or divides by zero", () => {
    expect(offerTotals([dollars(100)], 50_000).savingsPercent).toBe(0);
    expect(offerTotals([{ monthlyValueCents: 100 }], 100).savingsPercent).toBe(0);
  });
});
