import { expect, type Page, test } from "@playwright/test";

/** Opens the home page with a controllable clock and scrolls the carousel into view (it hydrates when visible). */
async function openCarousel(page: Page) {
  await page.clock.install();
  await page.goto("/");
  const carousel = page.getByRole("region", { name: "What industry leaders say" });
  await carousel.scrollIntoViewIfNeeded();
  await expect(carousel).toHaveAttribute("aria-roledescription", "carousel");
  // Hydrated once a dot answers a click.
  await expect(async () => {
    await carousel.getByRole("button", { name: "Show quote 2" }).click();
    await expect(carousel.getByRole("button", { name: "Show quote 2" })).toHaveAttribute("aria-current", "true", {
      timeout: 300,
    });
  }).toPass({ intervals: [100] });
  // Freeze the page's time (focus and hover keep it from rotating meanwhile): from here only runFor
  // moves it, so a slow machine cannot make the 8000 ms interval look shorter.
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 5_000);
  await carousel.getByRole("button", { name: "Show quote 1" }).click();
  await page.mouse.move(0, 0);
  await page.locator("body").evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  return carousel;
}

const current = (carousel: import("@playwright/test").Locator) =>
  carousel.locator('button[aria-current="true"]').getAttribute("aria-label");

const visibleQuote = (carousel: import("@playwright/test").Locator) =>
  carousel.locator('[aria-roledescription="slide"]:not([aria-hidden="true"])').getAttribute("aria-label");

test.describe("home quote carousel", () => {
  test("has six quotes with a dot each, and advances every 8000 ms, wrapping around", async ({ page }) => {
    const carousel = await openCarousel(page);
    await expect(carousel.getByRole("button", { name: /^Show quote \d$/ })).toHaveCount(6);
    expect(await current(carousel)).toBe("Show quote 1");

    await page.clock.runFor(7_000);
    expect(await current(carousel)).toBe("Show quote 1");
    await page.clock.runFor(1_000);
    await expect.poll(() => current(carousel)).toBe("Show quote 2");
    expect(await visibleQuote(carousel)).toBe("2 of 6");

    await page.clock.runFor(8_000 * 4);
    await expect.poll(() => current(carousel)).toBe("Show quote 6");
    await page.clock.runFor(8_000);
    await expect.poll(() => current(carousel)).toBe("Show quote 1");
  });

  test("a dot shows its quote", async ({ page }) => {
    const carousel = await openCarousel(page);
    await carousel.getByRole("button", { name: "Show quote 4" }).click();
    expect(await current(carousel)).toBe("Show quote 4");
    expect(await visibleQuote(carousel)).toBe("4 of 6");
    await expect(carousel.getByText("Kevin Tran")).toBeVisible();
  });

  test("pauses while hovered and resumes after", async ({ page }) => {
    const carousel = await openCarousel(page);
    await carousel.hover();
    await page.clock.runFor(20_000);
    expect(await current(carousel)).toBe("Show quote 1");
    await page.mouse.move(0, 0);
    await page.clock.runFor(8_000);
    await expect.poll(() => current(carousel)).toBe("Show quote 2");
  });

  test("pauses while focus is inside it", async ({ page }) => {
    const carousel = await openCarousel(page);
    await carousel.getByRole("button", { name: "Show quote 3" }).focus();
    await page.clock.runFor(20_000);
    expect(await current(carousel)).toBe("Show quote 1");
    await page.locator("body").evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.clock.runFor(8_000);
    await expect.poll(() => current(carousel)).toBe("Show quote 2");
  });

  test("the pause button stops and restarts the rotation", async ({ page }) => {
    const carousel = await openCarousel(page);
    await carousel.getByRole("button", { name: "Pause quotes" }).click();
    await page.mouse.move(0, 0);
    await page.locator("body").evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.clock.runFor(20_000);
    expect(await current(carousel)).toBe("Show quote 1");
    await carousel.getByRole("button", { name: "Play quotes" }).click();
    await page.mouse.move(0, 0);
    await page.locator("body").evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.clock.runFor(8_000);
    await expect.poll(() => current(carousel)).toBe("Show quote 2");
  });

  test("does not rotate for visitors who prefer reduced motion", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    const carousel = await openCarousel(page);
    await page.clock.runFor(30_000);
    expect(await current(carousel)).toBe("Show quote 1");
  });
});
