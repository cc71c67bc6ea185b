/** The lead pages and the OS video with their providers configured (see fixture-site.mjs). */
import { expect, type Page, test } from "@playwright/test";
import { FIXTURE_SITE } from "./servers";

test.use({ baseURL: FIXTURE_SITE });

const PROVIDER = "https://forms.scheduling-provider.test";

/** Stands in for the scheduling provider on the internet: a form page and an embed script. */
async function provider(page: Page, reachable = true) {
  const requests: string[] = [];
  await page.route(`${PROVIDER}/**`, (route) => {
    requests.push(route.request().url());
    if (!reachable) return route.abort("internetdisconnected");
    const isScript = route.request().url().endsWith(".js");
    return route.fulfill({
      contentType: isScript ? "text/javascript" : "text/html",
      body: isScript
        ? "window.providerScriptLoaded = true;"
        : "<!doctype html><title>Form</title><h1>Tell us about your practice</h1>",
    });
  });
  return requests;
}

test.describe("with the providers configured", () => {
  for (const path of ["/get-started-ai", "/get-started-os", "/get-started-mindset", "/get-started"]) {
    test(`${path} embeds the consultation form in a 600px frame`, async ({ page }) => {
      await provider(page);
      await page.goto(path);
      const frame = page.getByTitle("Consultation Form");
      await expect(frame).toBeVisible();
      expect((await frame.boundingBox())!.height).toBe(600);
      await expect(page.frameLocator('iframe[title="Consultation Form"]').getByRole("heading")).toHaveText(
        "Tell us about your practice",
      );
      await expect(page.getByText("Form not loading?")).toBeVisible();
    });
  }

  test("the form receives the campaign and referrer of the visit's first landing", async ({ page }) => {
    await provider(page);
    await page.goto("/transformation?utm_source=linkedin&utm_medium=paid&utm_campaign=q4-ria", {
      referer: "https://www.linkedin.com/feed/",
    });
    await page.goto("/mindset");
    await page.getByRole("link", { name: "YES! I Want To Transform My Mindset Now!" }).first().click();
    await expect(page).toHaveURL(/\/get-started-mindset$/);
    const src = new URL((await page.getByTitle("Consultation Form").getAttribute("src"))!);
    expect(src.origin + src.pathname).toBe(`${PROVIDER}/widget/form/consult`);
    expect(Object.fromEntries(src.searchParams)).toEqual({
      source: "site",
      utm_source: "linkedin",
      utm_medium: "paid",
      utm_campaign: "q4-ria",
      referrer: "https://www.linkedin.com/feed/",
      landing_page: "/transformation",
    });
  });

  test("/apply loads the booking widget and its script on arrival", async ({ page }) => {
    const requests = await provider(page);
    await page.goto("/apply?utm_source=newsletter");
    await expect(page.getByTitle("Booking Calendar")).toBeVisible();
    await expect
      .poll(() => page.evaluate(() => (window as { providerScriptLoaded?: boolean }).providerScriptLoaded))
      .toBe(true);
    expect(requests).toContain(`${PROVIDER}/js/form_embed.js`);
    const src = new URL((await page.getByTitle("Booking Calendar").getAttribute("src"))!);
    expect(src.searchParams.get("utm_source")).toBe("newsletter");
  });

  test("when the provider is unreachable the page still renders and says how to reach the team", async ({ page }) => {
    await provider(page, false);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto("/apply");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByText("Form not loading?")).toBeVisible();
    await expect(page.getByRole("link", { name: "success@advisoraccelerator.com" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "What to Expect" })).toBeVisible();
    expect(errors).toEqual([]);
  });

  test("the OS page logs the exact warnings when Wistia's scripts are blocked, and keeps working", async ({ page }) => {
    await page.route("https://fast.wistia.com/**", (route) => route.abort());
    const warnings: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "warning") warnings.push(message.text());
    });
    await page.goto("/advisor-os");
    await page.locator("wistia-video").scrollIntoViewIfNeeded();
    await expect
      .poll(() => warnings.slice().sort())
      .toEqual(["Failed to load Wistia embed script", "Failed to load Wistia player script"]);
    await expect(page.getByRole("heading", { level: 2, name: "The nine modules" })).toBeVisible();
  });

  test("Wistia's scripts load only on the OS page", async ({ page }) => {
    const wistia: string[] = [];
    await page.route("https://fast.wistia.com/**", (route) => {
      wistia.push(route.request().url());
      return route.abort();
    });
    for (const path of ["/", "/transformation", "/mindset", "/programs/advisor-os-accelerator"]) {
      await page.goto(path);
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      await page.waitForTimeout(200);
    }
    expect(wistia).toEqual([]);
  });
});

test.describe("built for a hosted Supabase project", () => {
  test("the account button reads that project's session, and no page script names Supabase", async ({ page }) => {
    const scripts: string[] = [];
    page.on("response", async (response) => {
      if (response.request().resourceType() === "script") scripts.push(await response.text());
    });
    const session = JSON.stringify({
      access_token: "header.payload.signature",
      refresh_token: "refresh",
      expires_at: Math.floor(Date.now() / 1000) + 3600,
      user: { id: "0d2d4f1e-5a8e-4c5b-9a59-3a1f6b0c2e11", email: "ada@example.com" },
    });
    // supabase-js keeps the session of https://fixtureproject.supabase.co under this key.
    await page.addInitScript((value) => localStorage.setItem("sb-fixtureproject-auth-token", value), session);
    await page.goto("/", { waitUntil: "networkidle" });
    await expect(page.getByRole("banner").getByRole("link", { name: "Portal", exact: true })).toBeVisible();
    const inline = await page.locator("script:not([src])").allTextContents();
    for (const body of [...inline, ...scripts]) expect(body).not.toMatch(/supabase/i);
  });
});
