import { describe, expect, it } from "vitest";
import { formatCents } from "../../packages/shared/money.ts";

describe("formatCents", () => {
  it("shows the checkout prices of docs/product.md, Business constants and limits in en-US dollars", () => {
    expect(formatCents(1_500_000)).toBe("$15,000");
    expect(formatCents(299_900)).toBe("$2,999");
    expect(formatCents(30_000)).toBe("$300");
  });

  it("keeps cents when the amount has them", () => {
    expect(formatCents(1999)).toBe("$19.99");
    expect(formatCents(5)).toBe("$0.05");
    expect(formatCents(0)).toBe("$0");
  });

  it("formats other currencies by their code, case-insensitively", () => {
    expect(formatCents(250_000, "eur")).toBe("€2,500");
  });

  it("refuses amounts that are not whole cents", () => {
    expect(() => formatCents(19.5)).toThrow(/whole cents/);
  });
});
