import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { load } from "js-yaml";
import { LEAD_PAGES, PENDING_ROUTES, SPEC_ROUTES, sitemapPaths } from "./routes";

/** The page has a title, a description, a canonical URL at `canonicalPath` and matching Open Graph tags. */
async function expectSeoTags(page: Page, request: APIRequestContext, path: string, canonicalPath: string) {
  expect(await page.title(), path).toMatch(/\S.{9,}/);
  const meta = (selector: string) => page.locator(selector).first().getAttribute("content");
  expect((await meta('meta[name="description"]'))?.length ?? 0, path).toBeGreaterThanOrEqual(50);
  await expect(page.locator('link[rel="canonical"]'), path).toHaveCount(1);
  const canonical = await page.locator('link[rel="canonical"]').getAttribute("href");
  expect(new URL(canonical!).pathname, path).toBe(canonicalPath);
  expect(await meta('meta[property="og:url"]'), path).toBe(canonical);
  expect(await meta('meta[property="og:title"]'), path).toBe(await page.title());
  expect(await meta('meta[property="og:description"]'), path).toBe(await meta('meta[name="description"]'));
  const image = await meta('meta[property="og:image"]');
  expect((await request.get(new URL(image!).pathname)).status(), path).toBe(200);
}

test.describe("every page", () => {
  test("the sitemap lists the site's pages and no 404 page", async ({ request }) => {
    const paths = await sitemapPaths(request);
    for (const path of ["/", "/privacy-policy", "/terms-of-service", "/dmca", "/get-started-ai"]) {
      expect(paths).toContain(path);
    }
    expect(paths).not.toContain("/404");
  });

  test("answers 200 with a title, description, canonical URL and Open Graph tags", async ({ page, request }) => {
    const paths = await sitemapPaths(request);
    for (const path of [...new Set(["/", ...paths])]) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(200);
      await expectSeoTags(page, request, path, path);
      await expect(page.getByRole("heading", { level: 1 }), path).toHaveCount(1);
    }
  });

  test("every title ends with the brand of content/site.yaml in the same form, once", async ({ page, request }) => {
    const { brand } = (
      load(readFileSync(join(import.meta.dirname, "../../content/site.yaml"), "utf8")) as { site: { brand: string } }
    ).site;
    const suffix = ` | ${brand}`;
    for (const path of [...new Set(["/", ...(await sitemapPaths(request))]), "/advisor-os/details", "/no-such-page"]) {
      await page.goto(path);
      const title = await page.title();
      if (title === brand) continue;
      expect(title.endsWith(suffix), `${path}: "${title}" ends with "${suffix}"`).toBe(true);
      const own = title.slice(0, -suffix.length);
      // The page's own title before it, and the brand only once.
      expect(own.trim() !== "" && own !== brand && !own.endsWith(suffix), `${path}: "${title}"`).toBe(true);
    }
  });

  test("the 404 page has its own title, description, canonical URL and Open Graph tags", async ({ page, request }) => {
    const response = await page.goto("/no-such-page");
    expect(response?.status()).toBe(404);
    await expectSeoTags(page, request, "/no-such-page", "/404");
  });

  test("every internal link resolves, except links to routes later issues build", async ({ page, request }) => {
    const paths = await sitemapPaths(request);
    const targets = new Map<string, string>();
    for (const path of [...paths, "/no-such-page"]) {
      await page.goto(path);
      const hrefs = await page
        .locator('a[href^="/"]')
        .evaluateAll((links) => links.map((a) => a.getAttribute("href")!));
      for (const href of hrefs) if (!targets.has(href)) targets.set(href, path);
    }
    expect(targets.size).toBeGreaterThan(10);
    const dead: string[] = [];
    for (const [href, from] of targets) {
      const url = new URL(href, "http://x");
      if (PENDING_ROUTES.includes(url.pathname)) continue;
      const status = (await request.get(url.pathname + url.search)).status();
      if (status >= 400) dead.push(`${href} (linked from ${from}) answers ${status}`);
    }
    expect(dead).toEqual([]);
  });

  test("pending routes still answer 404 (delete them from PENDING_ROUTES when they land)", async ({ request }) => {
    for (const path of PENDING_ROUTES) {
      expect((await request.get(path)).status(), path).toBe(404);
    }
  });

  test("every route of the product's route table (docs/product.md, Screens and routes) is built, or listed as pending", async ({
    request,
  }) => {
    const missing: string[] = [];
    for (const path of SPEC_ROUTES) {
      if (PENDING_ROUTES.includes(path)) continue;
      const status = (await request.get(path)).status();
      if (status !== 200) missing.push(`${path} answers ${status}`);
    }
    expect(missing).toEqual([]);
    for (const path of PENDING_ROUTES)
      expect(SPEC_ROUTES, `${path} is not a route of docs/product.md, Screens and routes`).toContain(path);
  });

  test("an unknown address shows the 404 page with a way home", async ({ page }) => {
    const response = await page.goto("/no-such-page");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Return to Home" })).toHaveAttribute("href", "/");
    await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", "noindex");
  });

  test("robots.txt allows crawling and points at the sitemap", async ({ request }) => {
    const robots = await (await request.get("/robots.txt")).text();
    expect(robots).toContain("User-agent: *");
    const sitemap = robots.match(/^Sitemap: (.+)$/m)?.[1];
    expect((await request.get(new URL(sitemap!).pathname)).status()).toBe(200);
  });
});

test.describe("legal pages", () => {
  for (const [path, heading, footerLink] of [
    ["/privacy-policy", "Privacy Policy", "Privacy Policy"],
    ["/terms-of-service", "Terms of Service", "Terms of Service"],
    ["/dmca", "DMCA Policy", "DMCA"],
  ] as const) {
    test(`${path} renders its Markdown and the footer links to it`, async ({ page }) => {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
      const main = page.getByRole("main");
      expect(await main.getByRole("heading", { level: 2 }).count()).toBeGreaterThan(2);
      expect(await main.getByRole("paragraph").count()).toBeGreaterThan(2);
      // Rendered, not shown as source: no Markdown syntax left in the text.
      expect(await main.innerText()).not.toMatch(/^#{1,6} |\*\*\S|\]\(/m);
      const link = page.getByRole("contentinfo").getByRole("link", { name: footerLink, exact: true });
      await expect(link).toBeVisible();
      await expect(link).toHaveAttribute("href", path);
    });
  }

  test("the DMCA page says notices are processed in 24-48 hours", async ({ page }) => {
    await page.goto("/dmca");
    await expect(page.getByRole("main")).toContainText("Notices are processed in 24-48 hours");
  });
});

test.describe("home page", () => {
  test("shows the stats, the six reasons, the three audiences and the three programs", async ({ page }) => {
    await page.goto("/");
    const main = page.getByRole("main");
    for (const text of ["300%", "Average AUM growth", "50+", "Hours saved per month", "95%", "Client satisfaction"]) {
      await expect(main.getByText(text, { exact: true })).toBeVisible();
    }
    await expect(page.getByRole("heading", { level: 2, name: /^Why advisors choose/ })).toBeVisible();
    for (const name of [
      "A proven growth framework",
      "An elite community",
      "AI-powered precision",
      "Self-paced learning",
      "Stage-based playbooks",
      "Expert coaching",
    ]) {
      await expect(main.getByRole("heading", { level: 3, name })).toBeVisible();
    }
    for (const name of ["Gain traction", "Accelerate growth", "Implement a succession plan"]) {
      await expect(main.getByRole("heading", { level: 3, name })).toBeVisible();
    }
    const programs = page.locator("section", { has: page.getByRole("heading", { name: "Choose your program" }) });
    for (const [name, tag] of [
      ["Growth Mindset Mastery", "Self-paced"],
      ["AI Advisor Accelerator", "12-week cohort"],
      ["Advisor OS Accelerator", "12-week"],
    ] as const) {
      const card = programs.getByRole("listitem").filter({ has: page.getByRole("heading", { name, exact: true }) });
      await expect(card.getByText(tag, { exact: true })).toBeVisible();
    }
    const flagship = programs
      .getByRole("listitem")
      .filter({ has: page.getByRole("heading", { name: "AI Advisor Accelerator" }) });
    await expect(flagship.getByText("Most Popular")).toBeVisible();
    await expect(page.getByRole("link", { name: "View All Programs" })).toHaveAttribute("href", "/programs");
  });

  test("calls to action use the default text and lead to /get-started-ai, which shows the consultation page", async ({
    page,
  }) => {
    await page.goto("/");
    const cta = page.getByRole("link", { name: "YES! I Want To Apply To Join The Advisor Accelerator Now!" });
    expect(await cta.count()).toBeGreaterThanOrEqual(2);
    await cta.first().click();
    await expect(page).toHaveURL(/\/get-started-ai$/);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByRole("heading", { name: "What to Expect" })).toBeVisible();
  });

  test("the hero video placeholder keeps its 16:9 frame before and after load", async ({ page }) => {
    await page.goto("/");
    const poster = page.locator("video-facade");
    const box = await poster.boundingBox();
    expect(box!.width / box!.height).toBeCloseTo(16 / 9, 1);
    const shifts = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          let total = 0;
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries() as (PerformanceEntry & { value: number })[]) total += entry.value;
          }).observe({ type: "layout-shift", buffered: true });
          setTimeout(() => resolve(total), 500);
        }),
    );
    expect(shifts).toBeLessThanOrEqual(0.01);
  });
});

test("every call to action on every page reaches a consultation page", async ({ page, request }) => {
  const leadPages = LEAD_PAGES.map((lead) => lead.path);
  let seen = 0;
  for (const path of await sitemapPaths(request)) {
    await page.goto(path);
    const ctas = page.getByRole("link", { name: /^(YES! I Want To|Apply|Book Your Free Strategy Call)/ });
    for (const href of await ctas.evaluateAll((links) => links.map((a) => a.getAttribute("href")))) {
      expect(leadPages, `${path} links a call to action to ${href}`).toContain(href);
      seen++;
    }
  }
  expect(seen).toBeGreaterThan(15);
  for (const path of leadPages) expect((await request.get(path)).status(), path).toBe(200);
});

test("the sales pages carry their long-form story, written in MDX", async ({ page }) => {
  for (const [path, heading, emphasis] of [
    ["/transformation", "Why we built the Accelerator", "It comes from the system around the plan."],
    ["/mindset", "A note to the advisor who knows they could do more", "Top producers have simply learned"],
    ["/advisor-os", "The day your firm stopped depending on you", "It takes writing down how your firm works"],
  ] as const) {
    await page.goto(path);
    const story = page.locator("section", { has: page.getByRole("heading", { level: 2, name: heading }) });
    expect(await story.getByRole("paragraph").count(), path).toBeGreaterThanOrEqual(3);
    await expect(story.locator("strong"), path).toContainText(emphasis);
  }
});
