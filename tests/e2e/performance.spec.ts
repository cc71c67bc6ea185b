import { expect, test } from "@playwright/test";

test("marketing pages load no supabase-js and no React until an island needs it", async ({ page }) => {
  const scripts: { url: string; body: string }[] = [];
  page.on("response", async (response) => {
    if (response.request().resourceType() === "script")
      scripts.push({ url: response.url(), body: await response.text() });
  });
  await page.goto("/", { waitUntil: "networkidle" });
  const inline = await page.locator("script:not([src])").allTextContents();
  for (const { url, body } of scripts) {
    expect(url).not.toMatch(/supabase/i);
    expect(body).not.toMatch(/supabase|GoTrueClient/i);
  }
  for (const body of inline) expect(body).not.toMatch(/GoTrueClient|@supabase/);
  // Nothing hydrates above the fold: React arrives with the carousel, when it is scrolled to.
  expect(scripts.map((s) => s.url).filter((u) => /client\.|react\./.test(u))).toEqual([]);

  await page.getByRole("region", { name: "What industry leaders say" }).scrollIntoViewIfNeeded();
  await expect.poll(() => scripts.some((s) => /client\./.test(s.url))).toBe(true);
  for (const { body } of scripts) expect(body).not.toMatch(/GoTrueClient/);
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
