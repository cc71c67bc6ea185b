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

/**
 * Holds the island's JavaScript (its component, the React renderer and their imports) until
 * `release()`: the carousel stays the server's HTML, as for a reader on a slow connection.
 */
async function holdIslandScripts(page: Page) {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const held: string[] = [];
  await page.route(/\/_astro\/[^?]*\.js(\?|$)/, async (route) => {
    held.push(route.request().url());
    await released;
    await route.continue().catch(() => {}); // the page may be gone when the test ends first
  });
  return { held, release };
}

const slides = (carousel: import("@playwright/test").Locator) => carousel.locator('[aria-roledescription="slide"]');
const visible = (carousel: import("@playwright/test").Locator) =>
  carousel.locator('[aria-roledescription="slide"]:not([aria-hidden="true"])');

test.describe("before React has loaded", () => {
  test.beforeEach(async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" }); // nothing rotates on its own once hydrated
  });

  test("next shows the next quote, and React carries on from there", async ({ page }) => {
    const { held, release } = await holdIslandScripts(page);
    await page.goto("/transformation");
    const carousel = page.getByRole("region", { name: "Advisor testimonials" });
    await carousel.scrollIntoViewIfNeeded();
    // In view, the island has asked for its JavaScript, which does not come yet.
    await expect.poll(() => held.length).toBeGreaterThan(0);
    await expect(slides(carousel).nth(0)).toBeInViewport();
    await expect(slides(carousel).nth(1)).not.toBeInViewport();

    await carousel.getByRole("button", { name: "Next quote" }).click();
    await expect(slides(carousel).nth(1)).toBeInViewport();
    await expect(slides(carousel).nth(0)).not.toBeInViewport();
    await carousel.getByRole("button", { name: "Previous quote" }).click();
    await carousel.getByRole("button", { name: "Previous quote" }).click(); // wraps around
    const count = await slides(carousel).count();
    await expect(slides(carousel).nth(count - 1)).toBeInViewport();
    await carousel.getByRole("button", { name: "Next quote" }).click();
    await carousel.getByRole("button", { name: "Next quote" }).click();
    await expect(slides(carousel).nth(1)).toBeInViewport();

    release();
    // Hydrated on the quote the reader went to.
    await expect(carousel.getByRole("button", { name: "Show quote 2" })).toHaveAttribute("aria-current", "true");
    await expect(visible(carousel)).toHaveAttribute("aria-label", `2 of ${count}`);
    await carousel.getByRole("button", { name: "Next quote" }).click();
    await expect(carousel.getByRole("button", { name: "Show quote 3" })).toHaveAttribute("aria-current", "true");
    await expect(visible(carousel)).toHaveAttribute("aria-label", `3 of ${count}`);
    await expect(slides(carousel).nth(2)).toBeInViewport();
  });

  test("a dot shows its quote on the home page", async ({ page }) => {
    const { held, release } = await holdIslandScripts(page);
    await page.goto("/");
    const carousel = page.getByRole("region", { name: "What industry leaders say" });
    await carousel.scrollIntoViewIfNeeded();
    await expect.poll(() => held.length).toBeGreaterThan(0);
    await carousel.getByRole("button", { name: "Show quote 4" }).click();
    await expect(slides(carousel).nth(3)).toBeInViewport();
    await expect(carousel.getByText("Kevin Tran")).toBeInViewport();
    release();
    await expect(carousel.getByRole("button", { name: "Show quote 4" })).toHaveAttribute("aria-current", "true");
    await expect(visible(carousel)).toHaveAttribute("aria-label", "4 of 6");
  });

  test("the pause button waits for the rotation it pauses", async ({ page }) => {
    const { held, release } = await holdIslandScripts(page);
    await page.goto("/");
    const carousel = page.getByRole("region", { name: "What industry leaders say" });
    await carousel.scrollIntoViewIfNeeded();
    await expect.poll(() => held.length).toBeGreaterThan(0);
    await expect(carousel.getByRole("button", { name: "Pause quotes" })).toBeHidden();
    release();
    await expect(carousel.getByRole("button", { name: "Pause quotes" })).toBeVisible();
  });
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the quotes scroll and snap, one at a time", async ({ page }) => {
    await page.goto("/transformation");
    const carousel = page.getByRole("region", { name: "Advisor testimonials" });
    await carousel.scrollIntoViewIfNeeded();
    await expect(slides(carousel).nth(0)).toBeInViewport();
    const box = (await slides(carousel).nth(0).boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(box.width * 0.6, 0); // past halfway: snaps to the next quote
    await expect(slides(carousel).nth(1)).toBeInViewport({ ratio: 0.99 });
    await expect(slides(carousel).nth(0)).not.toBeInViewport();
  });
});
