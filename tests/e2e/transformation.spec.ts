import { expect, test } from "@playwright/test";

test.describe("/transformation", () => {
  test("hero with video, the six pain points, four phases, three audiences, six curriculum blocks", async ({
    page,
  }) => {
    await page.goto("/transformation");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.locator("video-facade")).toBeVisible();
    const pain = page.locator("section", { has: page.locator("#pain-heading") });
    await expect(pain.getByRole("heading", { level: 3 })).toHaveText([
      "No sales process",
      "Lack of training",
      "Wrong clients",
      "Poor time management",
      "Failure to add value",
      "Burnout",
    ]);
    const phases = page.locator("section", { has: page.locator("#framework-heading") });
    await expect(phases.getByRole("heading", { level: 3 })).toHaveText(["Attract", "Convert", "Automate", "Scale"]);
    const audience = page.locator("section", { has: page.locator("#audience-heading") });
    await expect(audience.getByRole("listitem").filter({ has: page.getByRole("heading", { level: 3 }) })).toHaveCount(
      3,
    );
    const curriculum = page.locator("section", { has: page.locator("#curriculum-heading") });
    await expect(curriculum.getByRole("listitem")).toHaveCount(6);
  });

  test("the testimonial carousel wraps both ways and its dots set the quote", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" }); // no auto-advance while we click
    await page.goto("/transformation");
    const carousel = page.getByRole("region", { name: "Advisor testimonials" });
    await carousel.scrollIntoViewIfNeeded();
    const dots = carousel.getByRole("button", { name: /^Show quote \d+$/ });
    const count = await dots.count();
    expect(count).toBeGreaterThanOrEqual(3);
    const current = () => carousel.locator('button[aria-current="true"]').getAttribute("aria-label");
    const previous = carousel.getByRole("button", { name: "Previous quote" });
    const next = carousel.getByRole("button", { name: "Next quote" });

    await expect(async () => {
      await previous.click();
      expect(await current()).toBe(`Show quote ${count}`);
    }).toPass();
    await next.click();
    expect(await current()).toBe("Show quote 1");
    await next.click();
    expect(await current()).toBe("Show quote 2");
    await carousel.getByRole("button", { name: `Show quote ${count}` }).click();
    expect(await current()).toBe(`Show quote ${count}`);
    await next.click();
    expect(await current()).toBe("Show quote 1");
    const visible = carousel.locator('[aria-roledescription="slide"]:not([aria-hidden="true"])');
    await expect(visible).toHaveAttribute("aria-label", `1 of ${count}`);
  });

  test("three success stories with five stars each", async ({ page }) => {
    await page.goto("/transformation");
    const stories = page.locator("section", { has: page.getByRole("heading", { level: 2, name: "Success Stories" }) });
    await expect(stories.getByRole("listitem")).toHaveCount(3);
    await expect(stories.getByRole("img", { name: "Rated 5 out of 5" })).toHaveCount(3);
  });

  test("the offer adds up its components and the page closes on /get-started", async ({ page }) => {
    await page.goto("/transformation");
    const offer = page.locator("section", { has: page.locator("#offer-heading") });
    await expect(offer.getByRole("listitem")).toHaveCount(7);
    await expect(offer.getByTestId("offer-total")).toHaveText("$56,470 + $750/month");
    await expect(offer.getByTestId("offer-price")).toHaveText("$35,000 + $450/month");
    await expect(
      offer.getByRole("link", { name: "YES! I Want To Apply To Join The Advisor Accelerator Now!" }),
    ).toHaveAttribute("href", "/get-started-ai");
    await expect(page.getByRole("link", { name: "Book Your Free Strategy Call" })).toHaveAttribute(
      "href",
      "/get-started",
    );
  });
});
