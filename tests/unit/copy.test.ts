/** The values a text of content/ names in braces, filled in as the pages read it (src/lib/copy.ts). */
import { describe, expect, it } from "vitest";
import { fill, parts, withBrand } from "../../src/lib/copy";

describe("fill", () => {
  it("puts each named value where the text names it", () => {
    expect(fill("Save {percent}%", { percent: 74 })).toBe("Save 74%");
    expect(fill("© {year} {brand}.", { year: 2027, brand: "Advisor Accelerator" })).toBe("© 2027 Advisor Accelerator.");
  });

  it("leaves a name it was not given as written, for the page that fills it later", () => {
    expect(fill("The people behind {program}, at {brand}", { brand: "Advisor Accelerator" })).toBe(
      "The people behind {program}, at Advisor Accelerator",
    );
  });
});

describe("parts", () => {
  it("cuts a text at its values, so a page can put an element where each goes", () => {
    expect(parts("Form not loading? Email {email} or call {phone}.")).toEqual([
      { text: "Form not loading? Email " },
      { value: "email" },
      { text: " or call " },
      { value: "phone" },
      { text: "." },
    ]);
  });

  it("keeps no empty words at the ends or between two values", () => {
    expect(parts("{price}{unit}")).toEqual([{ value: "price" }, { value: "unit" }]);
  });
});

describe("withBrand", () => {
  it("fills in the brand in every string of an entry, however deep", () => {
    const entry = {
      heading: "Why advisors choose {brand}",
      cta: { text: "YES! I Want To Apply To Join The {brand} Now!", href: "/get-started-ai" },
      points: ["{brand} coaches", "Save {percent}%"],
      order: 2,
    };
    expect(withBrand(entry, "Advisor Accelerator")).toEqual({
      heading: "Why advisors choose Advisor Accelerator",
      cta: { text: "YES! I Want To Apply To Join The Advisor Accelerator Now!", href: "/get-started-ai" },
      points: ["Advisor Accelerator coaches", "Save {percent}%"],
      order: 2,
    });
  });

  it("keeps dates and other objects as they are", () => {
    const updated = new Date("2026-11-01T00:00:00Z");
    const filled = withBrand({ updated, title: "{brand} terms" }, "Advisor Accelerator");
    expect(filled.updated).toBe(updated);
    expect(filled.title).toBe("Advisor Accelerator terms");
  });
});
