import { expect, type Page, type Request, test } from "@playwright/test";

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
