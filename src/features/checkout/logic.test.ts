/** The checkout page's rules: the program an address names, what ships to the browser, where Back goes. */
import { describe, expect, it } from "vitest";
import { loadPrograms } from "../../../tests/unit/content-files";
import { firstTouch } from "../../lib/attribution";
import { checkoutProgram, keyFromPath, parseAttribution, programAt, returnsToPreviousPage } from "./logic";

const programs = loadPrograms().map(checkoutProgram);

describe("the program a checkout address names (docs/product.md §9: trimmed, case-insensitive)", () => {
  it("reads the key, still encoded, from /checkout/<key>", () => {
    expect(keyFromPath("/checkout/AI_ACCELERATOR")).toBe("AI_ACCELERATOR");
    expect(keyFromPath("/checkout/growth_mindset%20")).toBe("growth_mindset%20");
    expect(keyFromPath("/checkout/Os_Accelerator/")).toBe("Os_Accelerator");
    expect(keyFromPath("/checkout")).toBeNull();
    expect(keyFromPath("/checkout/")).toBeNull();
    expect(keyFromPath("/checkout/a/b")).toBeNull();
    expect(keyFromPath("/mindset")).toBeNull();
  });

  it("finds each program at its key however it is spelled", () => {
    expect(programAt(programs, "/checkout/growth_mindset%20")?.name).toBe("Growth Mindset Mastery");
    expect(programAt(programs, "/checkout/ai_accelerator")?.name).toBe("AI Advisor Accelerator");
    expect(programAt(programs, "/checkout/Os_Accelerator")?.name).toBe("Advisor OS Accelerator");
    expect(programAt(programs, "/checkout/%20OS_ACCELERATOR%20")?.name).toBe("Advisor OS Accelerator");
  });

  it("finds nothing for an unknown key, the shell's own address or a deeper path", () => {
    for (const path of [
      "/checkout/PLATINUM",
      "/checkout/key-lookup",
      "/checkout/success",
      "/checkout/a/GROWTH_MINDSET",
    ]) {
      expect(programAt(programs, path), path).toBeUndefined();
    }
  });
});

describe("what the island receives of a program", () => {
  it("keeps the checkout's fields and drops the rest of the program's content", () => {
    const [first] = loadPrograms();
    const shipped = checkoutProgram(first!);
    expect(Object.keys(shipped).sort()).toEqual(
      ["checkoutKey", "description", "image", "imageAlt", "name", "page", "priceCents", "stripeLookupKey"].sort(),
    );
    expect(shipped.stripeLookupKey).toBe(first!.stripeLookupKey);
    expect(shipped.page).toBe(first!.page);
  });
});

describe("Back", () => {
  const origin = "https://advisoraccelerator.com";

  it("returns to the previous page when it was a page of this site in this tab", () => {
    expect(returnsToPreviousPage(`${origin}/mindset`, origin, 2)).toBe(true);
  });

  it("follows its link to the program's page otherwise", () => {
    // Another site (a search result, Stripe's page after a cancel), no referrer, or a new tab.
    expect(returnsToPreviousPage("https://checkout.stripe.com/c/pay/cs_test_1", origin, 3)).toBe(false);
    expect(returnsToPreviousPage("https://advisoraccelerator.com.evil.example/", origin, 3)).toBe(false);
    expect(returnsToPreviousPage("", origin, 3)).toBe(false);
    expect(returnsToPreviousPage("not a url", origin, 3)).toBe(false);
    expect(returnsToPreviousPage(`${origin}/mindset`, origin, 1)).toBe(false);
  });
});

describe("the visit's first touch, as src/scripts/visit.ts stored it", () => {
  it("reads back what the visit recorded", () => {
    const recorded = firstTouch(null, new URL("https://advisoraccelerator.com/mindset?utm_source=ads"), "");
    expect(parseAttribution(JSON.stringify(recorded))).toEqual({ landing_page: "/mindset", utm_source: "ads" });
  });

  it("keeps strings only, and nothing from a missing or broken record", () => {
    expect(parseAttribution('{"utm_source":"x","utm_term":7,"referrer":null}')).toEqual({ utm_source: "x" });
    for (const raw of [null, "", "not json", "[]", "null", '"text"'])
      expect(parseAttribution(raw), String(raw)).toBeNull();
  });
});
