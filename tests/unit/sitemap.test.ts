import { expect, it } from "vitest";
import { canonicalPath, sitemapXml } from "../../src/integrations/sitemap.mjs";

it("maps the paths Astro reports to canonical paths", () => {
  expect(canonicalPath("")).toBe("/");
  expect(canonicalPath("index.html")).toBe("/");
  expect(canonicalPath("dmca")).toBe("/dmca");
  expect(canonicalPath("dmca/")).toBe("/dmca");
  expect(canonicalPath("advisor-os/details.html")).toBe("/advisor-os/details");
  expect(canonicalPath("advisor-os/index")).toBe("/advisor-os");
});

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
