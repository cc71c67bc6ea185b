import { expect, type Locator, type Page, type Request, test } from "@playwright/test";

/** Every module an island can load: its component and renderer, and what they import, transitively. */
async function islandModules(page: Page): Promise<Set<string>> {
  const entries = await page
    .locator("astro-island")
    .evaluateAll((islands) =>
      islands.flatMap((island) => [island.getAttribute("component-url"), island.getAttribute("renderer-url")]),
    );
  const queue = entries.filter((url): url is string => !!url).map((url) => new URL(url, page.url()).href);
  const seen = new Set<string>();
  while (queue.length) {
    const url = queue.pop()!;
    if (seen.has(url)) continue;
    seen.add(url);
    const body = await (await page.request.get(url)).text();
    for (const [, specifier] of body.matchAll(/\b(?:from|import)\s*\(?\s*["'`]([^"'`]+\.m?js)["'`]/g)) {
      queue.push(new URL(specifier!, url).href);
    }
  }
  return seen;
}

test("the home page loads no JavaScript but its islands and Astro's island runtime, and never supabase-js", async ({
  page,
}) => {
  const requests: Request[] = [];
  page.on("request", (request) => requests.push(request));
  const isScript = (r: Request) => r.resourceType() === "script" || /\.m?js$/.test(new URL(r.url()).pathname);

  await page.goto("/", { waitUntil: "networkidle" });
  // Nothing hydrates above the fold: React arrives with the carousel, when it is scrolled to.
  expect(requests.filter(isScript).map((r) => r.url())).toEqual([]);

  // Scroll through the whole page so every island that hydrates on view does.
  await page.evaluate(async () => {
    for (let y = 0; y < document.documentElement.scrollHeight; y += 400) {
      window.scrollTo(0, y);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
  });
  await expect.poll(() => requests.some((r) => /client\./.test(r.url()))).toBe(true);
  await page.waitForLoadState("networkidle");

  const allowed = await islandModules(page);
  expect(allowed.size, "the carousel island, its renderer and their imports").toBeGreaterThanOrEqual(3);
  const scripts = requests.filter(isScript).map((r) => r.url());
  const modulepreloads = await page
    .locator('link[rel="modulepreload"]')
    .evaluateAll((links) => links.map((link) => (link as HTMLLinkElement).href));
  for (const url of [...scripts, ...modulepreloads]) {
    expect(allowed, `${url} is neither an island nor one of its imports`).toContain(url);
  }

  expect(requests.map((r) => r.url()).filter((url) => /supabase/i.test(url))).toEqual([]);
  const inline = await page.locator("script:not([src])").allTextContents();
  const bodies = [
    ...inline.map((body, i) => ({ url: `inline script ${i + 1}`, body })),
    ...(await Promise.all(scripts.map(async (url) => ({ url, body: await (await page.request.get(url)).text() })))),
  ];
  for (const { url, body } of bodies) expect(body, url).not.toMatch(/supabase|GoTrueClient/i);
});

test("the endorsement strip scrolls, and stops for visitors who prefer reduced motion", async ({ page }) => {
  await page.goto("/");
  const strip = page.getByRole("list", { name: "Endorsed by" });
  // Running animations on the strip or anything inside it, by name.
  const running = () =>
    strip.evaluate((el) =>
      [el, ...el.querySelectorAll("*")]
        .map((node) => getComputedStyle(node))
        .filter((style) => style.animationName !== "none" && style.animationPlayState !== "paused")
        .map((style) => style.animationName),
    );
  expect(await running()).not.toEqual([]);

  await page.emulateMedia({ reducedMotion: "reduce" });
  await page.reload();
  expect(await running()).toEqual([]);
  // Every firm is still listed once for assistive technology.
  expect(await strip.getByRole("listitem").count()).toBe(6);
});

/** Pages whose first screens differ: hero with video, sales pages, overview, checkout, legal, lead. */
const FIRST_SCREENS = [
  "/",
  "/transformation",
  "/mindset",
  "/advisor-os",
  "/programs",
  "/purchase-course",
  "/dmca",
  "/get-started-ai",
];
/** Short pages whose <body> and <main> stretch to the screen's height (BaseLayout's `fill`). */
const SHORT_PAGES = ["/login", "/forgot-password", "/checkout/GROWTH_MINDSET"];
/** Lighthouse's phone (a mobile browser: content wider than the page would zoom it out), and a desktop. */
const SCREENS = [
  {
    name: "mobile",
    options: { viewport: { width: 412, height: 823 }, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true },
  },
  { name: "desktop", options: { viewport: { width: 1280, height: 900 } } },
] as const;
const STYLESHEET = /\/_astro\/[^?]*\.css(\?|$)/;
/** The viewport once its fonts are in and its images decoded (they arrive in any order), without animations. */
async function screenshot(page: Page) {
  await page.evaluate(async () => {
    await document.fonts.ready;
    await Promise.all(
      [...document.images].filter((image) => image.complete).map((image) => image.decode().catch(() => {})),
    );
  });
  return page.screenshot({ animations: "disabled", caret: "hide" });
}
/** Every stylesheet has loaded and applies, those the page loads after its first screen included. */
const stylesheetsApplied = (page: Page) =>
  page.waitForFunction(() => {
    const links = [...document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')];
    const deferred = [...document.querySelectorAll("noscript[data-href]")].map((n) => n.getAttribute("data-href"));
    return (
      links.every((link) => link.sheet !== null) &&
      deferred.every((href) => links.some((link) => link.getAttribute("href") === href && link.sheet !== null))
    );
  });

/**
 * Puts the brand font in the browser's cache, as on any page after a visitor's first: a page then
 * draws its first screen in it, where a first page may keep the fallback (src/components/
 * BrandFont.astro). Tests that compare two loads of a page start from the same font.
 */
async function warmBrandFont(page: Page) {
  await page.goto("/", { waitUntil: "networkidle" });
  await page.waitForFunction(() => localStorage.getItem("brandFont") !== null);
}

/**
 * How a block is drawn, element by element: its box and the computed styles that decide what the
 * reader sees. Compared instead of pixels, which the software rasteriser does not reproduce
 * exactly from run to run (anti-aliasing of gradients and shadows).
 */
const drawn = (block: Locator) =>
  block.evaluate((root) =>
    [root, ...root.querySelectorAll("*")].map((el) => {
      const box = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      return [
        el.tagName,
        Math.round(box.x),
        Math.round(box.y - root.getBoundingClientRect().y),
        Math.round(box.width),
        Math.round(box.height),
        ...[
          "color",
          "background-color",
          "background-image",
          "font-size",
          "font-weight",
          "border-radius",
          "box-shadow",
          "display",
          "padding",
          "opacity",
        ].map((name) => style.getPropertyValue(name)),
      ].join(" ");
    }),
  );

test.describe("critical CSS", () => {
  test("pages inline their critical CSS and load the stylesheet once the first screen is drawn", async ({ page }) => {
    for (const path of FIRST_SCREENS) {
      await page.goto(path);
      await expect(page.locator("head style[data-critical]"), path).toHaveCount(1);
      // Without JavaScript a <noscript> link loads it; with it, the page adds the link back.
      const noscript = page.locator("head noscript[data-href]");
      await expect(noscript, path).toHaveCount(1);
      const href = (await noscript.getAttribute("data-href"))!;
      expect(await noscript.innerHTML(), path).toBe(`<link rel="stylesheet" href="${href}">`);
      await stylesheetsApplied(page);
      await expect(page.locator(`head link[rel="stylesheet"][href="${href}"]`), path).toHaveCount(1);
      // Requested once the document was parsed, not alongside it.
      const timing = await page.evaluate((href) => {
        const navigation = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
        const sheet = performance.getEntriesByType("resource").find((e) => e.name.endsWith(href))!;
        return { parsed: navigation.domContentLoadedEventStart, requested: sheet.startTime };
      }, href);
      expect(
        timing.requested,
        `${path}: the stylesheet is requested after the document is parsed`,
      ).toBeGreaterThanOrEqual(timing.parsed);
    }
  });

  for (const screen of SCREENS) {
    test(`the first screen is drawn by the critical CSS alone as by the full stylesheet (${screen.name})`, async ({
      browser,
      baseURL,
    }) => {
      test.setTimeout(90_000);
      const context = await browser.newContext({ ...screen.options, baseURL, reducedMotion: "reduce" });
      const page = await context.newPage();
      await warmBrandFont(page);
      for (const path of FIRST_SCREENS) {
        await page.route(STYLESHEET, (route) => route.abort());
        await page.goto(path, { waitUntil: "networkidle" });
        const critical = await screenshot(page);
        const criticalWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        await page.unroute(STYLESHEET);
        await page.goto(path, { waitUntil: "networkidle" });
        await stylesheetsApplied(page);
        const full = await screenshot(page);
        // Below the fold, what the critical CSS leaves unstyled never widens the page (a phone
        // would zoom out and move everything on the first screen).
        expect(criticalWidth, `${path}: the page's width before the stylesheet`).toBe(
          await page.evaluate(() => document.documentElement.scrollWidth),
        );
        expect(critical.equals(full), `${path}: the first screen without the stylesheet matches it with`).toBe(true);
      }
      await context.close();
    });
  }

  for (const screen of SCREENS) {
    test(`a stylesheet that arrives late shifts nothing on the first screen (${screen.name})`, async ({
      browser,
      baseURL,
    }) => {
      test.setTimeout(90_000);
      const context = await browser.newContext({ ...screen.options, baseURL });
      const page = await context.newPage();
      // As on a slow connection: the stylesheet comes well after the first screen is drawn (which
      // is before the loader asks for it, two frames after the load event).
      await page.route(STYLESHEET, async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        await route.continue();
      });
      // Every layout shift (nothing here is the reader's input).
      await page.addInitScript(() => {
        const w = window as unknown as { layoutShift: number };
        w.layoutShift = 0;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as (PerformanceEntry & { value: number })[])
            w.layoutShift += entry.value;
        }).observe({ type: "layout-shift", buffered: true });
      });
      for (const path of [...FIRST_SCREENS, ...SHORT_PAGES]) {
        await page.goto(path);
        await stylesheetsApplied(page);
        await page.evaluate(
          () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
        );
        const shift = await page.evaluate(() => (window as unknown as { layoutShift: number }).layoutShift);
        expect(shift, `${path}: cumulative layout shift`).toBeLessThanOrEqual(0.01);
      }
      await context.close();
    });
  }

  test.describe("without JavaScript", () => {
    test.use({ javaScriptEnabled: false });

    test("the full stylesheet applies, through the <noscript> link", async ({ page, browser, baseURL }) => {
      // A section far below the fold, whose rules the critical CSS leaves to the stylesheet.
      const offer = (p: Page) => p.locator("section", { has: p.locator("#offer-heading") });
      await page.goto("/transformation", { waitUntil: "networkidle" });
      const withoutScript = await drawn(offer(page));

      const context = await browser.newContext({ baseURL, javaScriptEnabled: true, viewport: page.viewportSize() });
      const scripted = await context.newPage();
      // Without JavaScript the <noscript> face draws the page in the brand font, as a cached font does.
      await warmBrandFont(scripted);
      await scripted.goto("/transformation", { waitUntil: "networkidle" });
      await stylesheetsApplied(scripted);
      const withScript = await drawn(offer(scripted));
      await context.close();
      expect(withoutScript).toEqual(withScript);
    });
  });
});
