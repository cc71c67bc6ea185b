import { type Browser, type CDPSession, expect, type Page, test } from "@playwright/test";

/** The typeface Chromium drew the element's text in: its own, not what CSS asked for. */
async function drawnIn(client: CDPSession, selector: string): Promise<string[]> {
  await client.send("DOM.enable");
  await client.send("CSS.enable");
  const { root } = await client.send("DOM.getDocument");
  const { nodeId } = await client.send("DOM.querySelector", { nodeId: root.nodeId, selector });
  const { fonts } = await client.send("CSS.getPlatformFontsForNode", { nodeId });
  return fonts.map((font) => font.familyName);
}

/** A page that records every layout shift and when the font file was asked for. */
async function recorded(browser: Browser, baseURL: string | undefined, options = {}) {
  const context = await browser.newContext({ baseURL, viewport: { width: 412, height: 823 }, ...options });
  const page = await context.newPage();
  await page.addInitScript(() => {
    const w = window as unknown as { layoutShift: number };
    w.layoutShift = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number })[]) w.layoutShift += entry.value;
    }).observe({ type: "layout-shift", buffered: true });
  });
  return { context, page, client: await context.newCDPSession(page) };
}

const fontFile = (url: string) => /\/_astro\/plus-jakarta-sans-[^/]*\.woff2$/.test(url);
const layoutShift = (page: Page) => page.evaluate(() => (window as unknown as { layoutShift: number }).layoutShift);

test("a first visit draws the page in the fallback, and downloads the brand font only once it is shown", async ({
  browser,
  baseURL,
}) => {
  const { context, page, client } = await recorded(browser, baseURL);
  let requestedAt = 0;
  page.on("request", (request) => {
    if (fontFile(request.url())) requestedAt = Date.now();
  });
  let loadedAt = 0;
  page.on("load", () => (loadedAt = Date.now()));
  const fontResponse = page.waitForResponse((response) => fontFile(response.url()));
  await page.goto("/programs");
  // Served by the site itself (font-src 'self'), after the load event, not alongside the HTML.
  expect((await fontResponse).status()).toBe(200);
  expect(requestedAt).toBeGreaterThanOrEqual(loadedAt);
  await page.waitForFunction(() => localStorage.getItem("brandFont") !== null);
  await page.waitForLoadState("networkidle");
  // This page keeps the fallback it was drawn in: nothing swaps under the reader.
  expect(["Arial", "Liberation Sans"]).toContain((await drawnIn(client, "h1"))[0]);
  expect(await layoutShift(page)).toBe(0);
  await context.close();
});

test("every later page is drawn in the brand font from its first paint, moving nothing", async ({
  browser,
  baseURL,
}) => {
  const { context, page, client } = await recorded(browser, baseURL);
  await page.goto("/", { waitUntil: "networkidle" });
  await page.waitForFunction(() => localStorage.getItem("brandFont") !== null);
  for (const path of ["/transformation", "/mindset", "/programs/growth-mindset"]) {
    await page.goto(path, { waitUntil: "networkidle" });
    expect(await drawnIn(client, "h1"), path).toEqual(["Plus Jakarta Sans"]);
    expect(await layoutShift(page), path).toBe(0);
  }
  await context.close();
});

test("where the brand font cannot load, the text is drawn in the fallback sized to match", async ({
  browser,
  baseURL,
}) => {
  const { context, page, client } = await recorded(browser, baseURL);
  await page.route(
    (url) => fontFile(url.href),
    (route) => route.abort(),
  );
  await page.goto("/mindset", { waitUntil: "networkidle" });
  const [family] = await drawnIn(client, "h1");
  // Arial where it is installed; its metric twin on Linux.
  expect(["Arial", "Liberation Sans"]).toContain(family);
  // Scaled to the brand face's widths, so the page is laid out as it would be in it.
  const sizes = await page.evaluate(() =>
    [...document.styleSheets]
      .flatMap((sheet) => [...sheet.cssRules])
      .filter((rule): rule is CSSFontFaceRule => rule instanceof CSSFontFaceRule)
      .filter((rule) => rule.style.getPropertyValue("font-family").includes("Fallback"))
      .map((rule) => rule.style.getPropertyValue("size-adjust")),
  );
  expect(sizes.length).toBeGreaterThan(0);
  for (const size of sizes) expect(size).not.toBe("100%");
  await context.close();
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the brand font loads the ordinary way", async ({ page, context }) => {
    const client = await context.newCDPSession(page);
    await page.goto("/transformation", { waitUntil: "networkidle" });
    expect(await drawnIn(client, "h1")).toEqual(["Plus Jakarta Sans"]);
  });
});
