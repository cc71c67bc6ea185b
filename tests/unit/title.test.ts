import { describe, expect, it } from "vitest";
import { titleWithBrand } from "../../src/lib/title";

describe("titleWithBrand", () => {
  const brand = "Advisor Accelerator";

  it("ends a page's title with the brand", () => {
    expect(titleWithBrand("Book Your Call", brand)).toBe("Book Your Call | Advisor Accelerator");
  });

  it("adds the brand even when the title names something with the brand in it", () => {
    expect(titleWithBrand("Apply to the AI Advisor Accelerator", brand)).toBe(
      "Apply to the AI Advisor Accelerator | Advisor Accelerator",
    );
  });

  it("keeps a title that already ends with the brand", () => {
    expect(titleWithBrand("Privacy Policy | Advisor Accelerator", brand)).toBe("Privacy Policy | Advisor Accelerator");
  });

  it("is the brand alone for a page without a title of its own", () => {
    expect(titleWithBrand(undefined, brand)).toBe(brand);
    expect(titleWithBrand(" ", brand)).toBe(brand);
    expect(titleWithBrand(brand, brand)).toBe(brand);
  });
});
