import { expect, type Response, test } from "@playwright/test";

test("marketing pages load no supabase-js and no React until an island needs it", async ({ page }) => {
  const responses: Response[] = [];
  page.on("response", (response) => {
    if (response.request().resourceType() === "script") responses.push(response);
  });
  // Bodies are read in the test, after the page settles, so none is read after it ends.
  const scripts = () => Promise.all(responses.map(async (r) => ({ url: r.url(), body: await r.text() })));

  await page.goto("/", { waitUntil: "networkidle" });
  const inline = await page.locator("script:not([src])").allTextContents();
  for (const body of inline) expect(body).not.toMatch(/GoTrueClient|@supabase/);
  for (const { url, body } of await scripts()) {
    expect(url).not.toMatch(/supabase/i);
    expect(body).not.toMatch(/supabase|GoTrueClient/i);
  }
  // Nothing hydrates above the fold: React arrives with the carousel, when it is scrolled to.
  expect(responses.map((r) => r.url()).filter((u) => /client\.|react\./.test(u))).toEqual([]);

  await page.getByRole("region", { name: "What industry leaders say" }).scrollIntoViewIfNeeded();
  await expect.poll(() => responses.some((r) => /client\./.test(r.url()))).toBe(true);
  await page.waitForLoadState("networkidle");
  for (const { body } of await scripts()) expect(body).not.toMatch(/GoTrueClient/);
});

test("the endorsement strip scrolls, and stops for visitors who prefer reduced motion", async ({ page }) => {
  await page.goto("/");
  const strip = page.getByRole("list", { name: "Endorsed by" });
  const animation = () => strip.evaluate((el) => getComputedStyle(el).animationName);
  expect(await animation()).not.toBe("none");

  await page.emulateMedia({ reducedMotion: "reduce" });
  await page.reload();
  expect(await animation()).toBe("none");
  // Every firm is still listed once for assistive technology.
  expect(await strip.getByRole("listitem").count()).toBe(6);
});
