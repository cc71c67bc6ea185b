import { expect, type Page, test } from "@playwright/test";

const chart = (page: Page) => page.getByRole("figure").filter({ hasText: "Top 5 reasons advisors fail" });
const barWidths = (page: Page) =>
  chart(page)
    .locator('[aria-hidden="true"] > div')
    .evaluateAll((bars) => bars.map((bar) => bar.getBoundingClientRect().width));

test.describe("/mindset", () => {
  test("shows the five reasons with their percentages", async ({ page }) => {
    await page.goto("/mindset");
    await expect(chart(page).getByRole("listitem")).toHaveCount(5);
    const values = await chart(page)
      .getByRole("listitem")
      .evaluateAll((items) => items.map((li) => li.querySelector("span:last-child")!.textContent));
    expect(values).toEqual(["35%", "33%", "27%", "19%", "17%"]);
  });

  test("the chart animates once, only after 30% of it scrolls into view", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 500 });
    await page.goto("/mindset");
    const figure = chart(page);
    // Bring it just below the fold: the island hydrates ahead of view and empties its bars.
    await figure.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 520));
    await expect(figure).toHaveAttribute("data-phase", "waiting");
    expect(Math.max(...(await barWidths(page)))).toBe(0);

    await figure.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 100));
    await expect(figure).toHaveAttribute("data-phase", "animating");
    await expect.poll(async () => Math.min(...(await barWidths(page)))).toBeGreaterThan(0);
    const widths = await barWidths(page);
    await page.waitForTimeout(1_600);
    const settled = await barWidths(page);
    expect(settled[0]).toBeGreaterThan(widths[0]! - 1);
    // Widths follow the values: the first bar is the longest, the last the shortest.
    expect(settled[0]).toBeGreaterThan(settled[4]!);

    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(200);
    await expect(figure).toHaveAttribute("data-phase", "animating");
  });

  test("draws its bars on a 0-100% scale: the 35% bar fills 35% of its track, not all of it", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.goto("/mindset");
    const bars = await chart(page)
      .getByRole("listitem")
      .evaluateAll((items) =>
        items.map((li) => {
          const track = li.querySelector('[aria-hidden="true"]')!;
          const bar = track.firstElementChild!;
          return {
            percent: parseFloat(li.querySelector("span:last-child")!.textContent!),
            share: bar.getBoundingClientRect().width / track.getBoundingClientRect().width,
          };
        }),
      );
    expect(bars.map((b) => b.percent)).toEqual([35, 33, 27, 19, 17]);
    for (const bar of bars) expect(bar.share, `${bar.percent}%`).toBeCloseTo(bar.percent / 100, 2);
  });

  test("with reduced motion the chart shows its final values and never animates", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.setViewportSize({ width: 1280, height: 500 });
    await page.goto("/mindset");
    const figure = chart(page);
    await figure.scrollIntoViewIfNeeded();
    await page.waitForTimeout(500);
    await expect(figure).toHaveAttribute("data-phase", "final");
    expect(Math.min(...(await barWidths(page)))).toBeGreaterThan(0);
  });

  test("without JavaScript the chart shows its final values", async ({ browser }) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto("/mindset");
    expect(Math.min(...(await barWidths(page)))).toBeGreaterThan(0);
    await context.close();
  });

  test("fit and not-fit lists, curriculum, and the computed offer ending with the mindset CTA", async ({ page }) => {
    await page.goto("/mindset");
    await expect(page.getByRole("heading", { level: 2, name: "This program is for you if" })).toBeVisible();
    await expect(page.getByRole("heading", { level: 2, name: "This program is not for you if" })).toBeVisible();
    await expect(page.getByRole("heading", { level: 2, name: "Inside the six modules" })).toBeVisible();
    const offer = page.locator("section", { has: page.locator("#offer-heading") });
    await expect(offer.getByTestId("offer-total")).toHaveText("$15,340");
    await expect(offer.getByTestId("offer-price")).toHaveText("$3,995");
    await expect(offer.getByText("Save 74%")).toBeVisible();
    const cta = offer.getByRole("link", { name: "YES! I Want To Transform My Mindset Now!" });
    await expect(cta).toHaveAttribute("href", "/get-started-mindset");
  });
});
