import { expect, it } from "vitest";
import { isNoindex, sitemapXml } from "../../src/integrations/sitemap.ts";

it("lists every page once at its absolute URL, without the error pages", () => {
  const xml = sitemapXml("https://advisoraccelerator.com", ["", "dmca", "dmca/", "404", "advisor-os/details"]);
  const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map(([, url]) => url);
  expect(locs).toEqual([
    "https://advisoraccelerator.com/",
    "https://advisoraccelerator.com/advisor-os/details",
    "https://advisoraccelerator.com/dmca",
  ]);
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
});

it("leaves out the paths it is told to, such as aliases", () => {
  const xml = sitemapXml(
    "https://advisoraccelerator.com",
    ["programs", "programs/ai-advisor"],
    ["/programs/ai-advisor"],
  );
  expect(xml).toContain("<loc>https://advisoraccelerator.com/programs</loc>");
  expect(xml).not.toContain("ai-advisor");
});

it("recognises a page kept out of search engines", () => {
  expect(isNoindex('<head><meta name="robots" content="noindex"></head>')).toBe(true);
  expect(isNoindex("<head><meta name=robots content=noindex,nofollow></head>")).toBe(true);
  expect(isNoindex('<head><meta name="description" content="noindex is a word"></head>')).toBe(false);
});
