import { describe, expect, it } from "vitest";
import { findByCheckoutKey } from "../../src/lib/catalogue";
import { loadPrograms } from "./content-files";

const programs = loadPrograms();

describe("program lookup by checkout key", () => {
  it("finds each program of the catalogue by its key", () => {
    expect(findByCheckoutKey(programs, "AI_ACCELERATOR")?.name).toBe("AI Advisor Accelerator");
    expect(findByCheckoutKey(programs, "OS_ACCELERATOR")?.name).toBe("Advisor OS Accelerator");
    expect(findByCheckoutKey(programs, "GROWTH_MINDSET")?.name).toBe("Growth Mindset Mastery");
  });

  it("matches case-insensitively and ignores surrounding spaces, encoded or not", () => {
    expect(findByCheckoutKey(programs, "growth_mindset ")?.checkoutKey).toBe("GROWTH_MINDSET");
    expect(findByCheckoutKey(programs, "growth_mindset%20")?.checkoutKey).toBe("GROWTH_MINDSET");
    expect(findByCheckoutKey(programs, "Os_Accelerator")?.checkoutKey).toBe("OS_ACCELERATOR");
  });

  it("finds nothing for unknown, empty or malformed keys", () => {
    expect(findByCheckoutKey(programs, "PLATINUM")).toBeUndefined();
    expect(findByCheckoutKey(programs, "")).toBeUndefined();
    expect(findByCheckoutKey(programs, "   ")).toBeUndefined();
    expect(findByCheckoutKey(programs, undefined)).toBeUndefined();
    expect(findByCheckoutKey(programs, "%E0%A4%A")).toBeUndefined();
  });

  it("carries the checkout prices of docs/product.md, Business constants and limits in cents", () => {
    const price = (key: string) => findByCheckoutKey(programs, key)?.priceCents;
    expect(price("AI_ACCELERATOR")).toBe(1_500_000);
    expect(price("OS_ACCELERATOR")).toBe(299_900);
    expect(price("GROWTH_MINDSET")).toBe(30_000);
  });
});
