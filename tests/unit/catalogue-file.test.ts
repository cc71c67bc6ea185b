/**
 * functions/_shared/catalogue.ts is generated from content/programs/*.yaml (scripts/catalogue.mjs):
 * the functions charge what the pages show only while the two agree.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CATALOGUE_FILE, catalogueSource } from "../../scripts/catalogue.mjs";
import { CATALOGUE } from "../../functions/_shared/catalogue.ts";

describe("the functions' catalogue", () => {
  it("is what scripts/catalogue.mjs writes from the program collection now (run `npm run catalogue` if not)", async () => {
    expect(readFileSync(CATALOGUE_FILE, "utf8")).toBe(await catalogueSource());
  });

  it("has a unique checkout key and lookup key per program, and whole positive prices", () => {
    expect(new Set(CATALOGUE.map((p) => p.key)).size).toBe(CATALOGUE.length);
    expect(new Set(CATALOGUE.map((p) => p.lookupKey)).size).toBe(CATALOGUE.length);
    for (const product of CATALOGUE) expect(Number.isInteger(product.priceCents) && product.priceCents > 0).toBe(true);
  });

  it("sells the spec's three programs at the spec's prices (docs/product.md §9)", () => {
    const prices = Object.fromEntries(CATALOGUE.map((p) => [p.key, p.priceCents]));
    expect(prices).toEqual({ AI_ACCELERATOR: 1_500_000, OS_ACCELERATOR: 299_900, GROWTH_MINDSET: 30_000 });
  });
});
