import { expect, test } from "@playwright/test";

test.describe("/advisor-os", () => {
  for (const path of ["/advisor-os", "/advisor-os/details"]) {
    test(`${path}: every section, nine modules, the payoff and the CTA to /get-started-os`, async ({ page }) => {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      for (const name of [
        "What stands between you and a firm that scales",
        "Why systems matter more than talent",
        "What you build in twelve weeks",
        "The nine modules",
        "What it gives back",
        "Hear from firms that built their OS",
        "Everything included",
      ]) {
        await expect(page.getByRole("heading", { level: 2, name })).toBeVisible();
      }
      const curriculum = page.locator("section", { has: page.locator("#curriculum-heading") });
      await expect(curriculum.getByRole("listitem")).toHaveCount(9);
      const payoff = page.locator("section", { has: page.locator("#payoff-heading") });
      await expect(payoff).toContainText("30-60 days");
      await expect(payoff).toContainText("20-30% less admin time");
      await expect(payoff).toContainText("6-12 months");
      await expect(payoff).toContainText("50%+ more capacity");
      await expect(page.getByRole("link", { name: "Apply Now" })).toHaveAttribute("href", "/get-started-os");
    });
  }

  test("/advisor-os/details points search engines at /advisor-os", async ({ page }) => {
    await page.goto("/advisor-os/details");
    const canonical = await page.locator('link[rel="canonical"]').getAttribute("href");
    expect(new URL(canonical!).pathname).toBe("/advisor-os");
  });

  test("with no Wistia media configured, no Wistia script is requested and the poster stands", async ({ page }) => {
    const wistia: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("wistia")) wistia.push(request.url());
    });
    await page.goto("/advisor-os");
    await page.locator("wistia-video").scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    expect(wistia).toEqual([]);
    await expect(page.locator("wistia-video img")).toBeVisible();
  });
});
