/** The site's public origin: content/site.yaml's url, or SITE_URL for a preview (src/lib/site-url.ts). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { siteUrl } from "../../src/lib/site-url.ts";

const content = readFileSync(new URL("../../content/site.yaml", import.meta.url), "utf8");

describe("the public origin", () => {
  it("is content/site.yaml's url", () => {
    expect(siteUrl(content)).toBe("https://advisoraccelerator.com");
  });

  it("is SITE_URL when a preview sets it, as an origin", () => {
    expect(siteUrl(content, "https://preview-42.advisoraccelerator.pages.dev/")).toBe(
      "https://preview-42.advisoraccelerator.pages.dev",
    );
    expect(siteUrl(content, "  ")).toBe("https://advisoraccelerator.com");
  });

  it("fails the build on a value that is not a URL", () => {
    expect(() => siteUrl(content, "advisoraccelerator.com")).toThrow(/SITE_URL must be an http\(s\) URL/);
    expect(() => siteUrl("site:\n  brand: x\n")).toThrow(/content\/site.yaml: site.url/);
  });
});
