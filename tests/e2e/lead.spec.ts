import { expect, test } from "@playwright/test";
import { LEAD_PAGES } from "./routes";
import { PRODUCTION_SITE } from "./servers";

/** The team's number as shown: non-breaking space and hyphen, so it never wraps. */
const PHONE = "(512)\u00a0555\u20110148";

test.describe("lead pages", () => {
  test("every lead page of the route table is an entry of content/lead-pages.yaml", () => {
    const paths = LEAD_PAGES.map((page) => page.path);
    for (const path of ["/get-started-ai", "/get-started-os", "/get-started-mindset", "/get-started", "/apply"]) {
      expect(paths).toContain(path);
    }
  });

  for (const { path, embed } of LEAD_PAGES) {
    // As the content ships: the site's own form on the consultation pages, the booking widget
    // (the stack's stand-in for the provider) on /apply.
    test(`${path}: simple header, heading, the ${embed === "booking" ? "booking widget in a frame" : "site's own form"}, What to Expect and a way to reach the team`, async ({
      page,
    }) => {
      await page.goto(path);
      const banner = page.getByRole("banner");
      await expect(banner.getByRole("link")).toHaveCount(1);
      await expect(banner.getByRole("link")).toHaveAttribute("href", "/");
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      const expectations = page.getByRole("complementary", { name: "What to Expect" });
      await expect(expectations.getByRole("heading", { level: 3 })).toHaveText([
        "A 30-minute strategy call",
        "A custom growth strategy",
        "Clear next steps",
      ]);
      if (embed === "booking") {
        await expect(page.getByTitle("Booking Calendar")).toBeVisible();
        await expect(page.getByText("Form not loading?")).toBeVisible();
      } else {
        await expect(page.getByRole("heading", { name: "Tell us about your practice" })).toBeVisible();
        await expect(page.getByRole("button", { name: "Request my strategy call" })).toBeVisible();
        await expect(page.getByText("Prefer to write or call?")).toBeVisible();
      }
      await expect(page.getByRole("link", { name: PHONE })).toHaveAttribute("href", "tel:5125550148");
    });
  }

  test("the consultation pages and the footer lead to /apply, where a visitor picks a time", async ({ page }) => {
    await page.goto("/get-started-os");
    await page.getByRole("link", { name: "Book your strategy call directly" }).click();
    await expect(page).toHaveURL(/\/apply$/);
    await page.goto("/");
    await page.getByRole("contentinfo").getByRole("link", { name: "Pick a call time" }).click();
    await expect(page).toHaveURL(/\/apply$/);
  });

  test("the phone number never breaks across lines", async ({ page }) => {
    await page.setViewportSize({ width: 320, height: 640 });
    await page.goto("/get-started-ai");
    for (const link of await page.getByRole("link", { name: PHONE }).all()) {
      const box = (await link.boundingBox())!;
      const lineHeight = await link.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
      expect(box.height).toBeLessThan(lineHeight * 1.5);
    }
  });

  test("the first landing's campaign and referrer are kept for the whole visit", async ({ page }) => {
    await page.goto("/dmca?utm_source=newsletter&utm_medium=email&utm_campaign=november", {
      referer: "https://mail.example.com/inbox",
    });
    await page.goto("/?utm_source=other");
    await page.getByRole("link", { name: "YES! I Want To Apply To Join The Advisor Accelerator Now!" }).first().click();
    await expect(page).toHaveURL(/\/get-started-ai$/);
    const stored = await page.evaluate(() => JSON.parse(sessionStorage.getItem("aa:attribution") ?? "null"));
    expect(stored).toEqual({
      landing_page: "/dmca",
      utm_source: "newsletter",
      utm_medium: "email",
      utm_campaign: "november",
      referrer: "https://mail.example.com/inbox",
    });
  });
});

test.describe("lead pages in the production build, with no provider set in content/site.yaml", () => {
  test.use({ baseURL: PRODUCTION_SITE });
  for (const { path, embed } of LEAD_PAGES) {
    test(`${path} has the site's own form instead of an empty frame, and the team's e-mail and phone`, async ({
      page,
    }) => {
      await page.goto(path);
      // /apply without a booking widget: the same form, and a coach replies with times.
      await expect(
        page.getByRole("heading", {
          name: embed === "booking" ? "Request your call time" : "Tell us about your practice",
        }),
      ).toBeVisible();
      await expect(page.getByRole("button", { name: "Request my strategy call" })).toBeEnabled();
      await expect(page.getByRole("link", { name: "success@advisoraccelerator.com" }).first()).toHaveAttribute(
        "href",
        "mailto:success@advisoraccelerator.com",
      );
      await expect(page.getByRole("link", { name: PHONE })).toHaveAttribute("href", "tel:5125550148");
      await expect(page.locator("iframe")).toHaveCount(0);
    });
  }
});
