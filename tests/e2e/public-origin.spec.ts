/**
 * The public origin in a build made as production makes it (fixture-site.ts: the real content,
 * a hosted Supabase URL, no SITE_URL): canonical and Open Graph URLs, the sitemap and robots.txt
 * use content/site.yaml's `url`, and nothing built mentions localhost.
 */
import { expect, test } from "@playwright/test";
import { sitemapPaths } from "./routes";
import { FIXTURE_SITE } from "./servers";

const ORIGIN = "https://advisoraccelerator.com";
test.use({ baseURL: FIXTURE_SITE });

test("canonical and Open Graph URLs, the sitemap and robots.txt use the site's public URL", async ({
  page,
  request,
}) => {
  await page.goto("/mindset");
  await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", `${ORIGIN}/mindset`);
  await expect(page.locator('meta[property="og:url"]')).toHaveAttribute("content", `${ORIGIN}/mindset`);
  await expect(page.locator('meta[property="og:image"]')).toHaveAttribute("content", `${ORIGIN}/og-image.png`);
  const sitemap = await (await request.get("/sitemap.xml")).text();
  const locs = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
  expect(locs.length).toBeGreaterThan(10);
  for (const loc of locs) expect(loc.startsWith(`${ORIGIN}/`)).toBe(true);
  expect(await (await request.get("/robots.txt")).text()).toContain(`Sitemap: ${ORIGIN}/sitemap.xml`);
});

test("no page, script or stylesheet of the build mentions localhost", async ({ request }) => {
  const assets = new Set<string>(["/robots.txt", "/sitemap.xml", "/404"]);
  const pages = [...(await sitemapPaths(request)), "/404"];
  for (const path of pages) {
    const html = await (await request.get(path)).text();
    expect(html, path).not.toMatch(/localhost|127\.0\.0\.1/);
    for (const [asset] of html.matchAll(/\/_astro\/[^"'\s)]+/g)) assets.add(asset);
  }
  // Every file the pages load, and every chunk those scripts import in turn.
  const queue = [...assets];
  for (let asset = queue.shift(); asset; asset = queue.shift()) {
    const body = await (await request.get(asset)).text();
    expect(body, asset).not.toMatch(/localhost|127\.0\.0\.1/);
    if (!asset.endsWith(".js")) continue;
    for (const [, chunk] of body.matchAll(/["'](\.\/[^"']+\.js)["']/g)) {
      const path = new URL(chunk!, `http://x${asset}`).pathname;
      if (!assets.has(path)) {
        assets.add(path);
        queue.push(path);
      }
    }
  }
  expect([...assets].some((a) => a.endsWith(".js"))).toBe(true);
});
