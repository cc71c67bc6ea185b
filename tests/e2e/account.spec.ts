import { expect, test } from "@playwright/test";

const KEY = "sb-localhost-auth-token";
const session = () =>
  JSON.stringify({
    access_token: "header.payload.signature",
    refresh_token: "refresh",
    expires_in: 3600,
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    token_type: "bearer",
    user: { id: "0d2d4f1e-5a8e-4c5b-9a59-3a1f6b0c2e11", email: "ada@example.com" },
  });

test.describe("account button", () => {
  test("shows Login to /login when signed out", async ({ page }) => {
    await page.goto("/");
    const banner = page.getByRole("banner");
    await expect(banner.getByRole("link", { name: "Login", exact: true })).toHaveAttribute("href", "/login");
    await expect(banner.getByRole("link", { name: "Portal" })).toHaveCount(0);
    await expect(banner.getByRole("status", { name: "Loading account" })).toBeHidden();
  });

  test("shows Portal to /portal when a session is persisted", async ({ page }) => {
    await page.addInitScript(([key, value]) => localStorage.setItem(key!, value!), [KEY, session()]);
    await page.goto("/");
    const banner = page.getByRole("banner");
    await expect(banner.getByRole("link", { name: "Portal", exact: true })).toHaveAttribute("href", "/portal");
    await expect(banner.getByRole("link", { name: "Login", exact: true })).toHaveCount(0);
  });

  test("shows an ellipsis while the session loads", async ({ browser }) => {
    // Without scripts the page stays as served: the loading state, not a guess.
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto("/");
    const loading = page.getByRole("banner").getByRole("status", { name: "Loading account" });
    await expect(loading).toBeVisible();
    await expect(loading).toHaveText("…");
    await context.close();
  });

  test("shows the ellipsis until the account button's script runs, then Login", async ({ page }) => {
    // Hold back every script the page could load: bundled files under /_astro/ are not answered, and
    // custom elements inlined in the page are not defined, until the loading state has been seen.
    const held: import("@playwright/test").Route[] = [];
    await page.route(/\/_astro\/.*\.m?js(\?.*)?$/, (route) => void held.push(route));
    await page.addInitScript(() => {
      const pending: (() => void)[] = [];
      const define = customElements.define.bind(customElements);
      customElements.define = (...args: Parameters<typeof define>) => void pending.push(() => define(...args));
      (window as { releaseScripts?: () => void }).releaseScripts = () => {
        customElements.define = define;
        for (const run of pending.splice(0)) run();
      };
    });
    await page.goto("/", { waitUntil: "domcontentloaded" });
    const banner = page.getByRole("banner");
    const loading = banner.getByRole("status", { name: "Loading account" });
    await expect(loading).toBeVisible();
    await expect(loading).toHaveText("…");
    await expect(banner.getByRole("link", { name: "Login", exact: true })).toHaveCount(0);
    await expect(banner.getByRole("link", { name: "Portal", exact: true })).toHaveCount(0);

    await page.unroute(/\/_astro\//);
    for (const route of held.splice(0)) await route.continue();
    await page.evaluate(() => (window as { releaseScripts?: () => void }).releaseScripts!());
    await expect(banner.getByRole("link", { name: "Login", exact: true })).toHaveAttribute("href", "/login");
    await expect(loading).toBeHidden();
  });

  test("follows sign-in and sign-out in another tab without a reload", async ({ context }) => {
    const page = await context.newPage();
    await page.goto("/");
    const banner = page.getByRole("banner");
    await expect(banner.getByRole("link", { name: "Login", exact: true })).toBeVisible();

    const other = await context.newPage();
    await other.goto("/dmca");
    await other.evaluate(([key, value]) => localStorage.setItem(key!, value!), [KEY, session()]);
    await expect(banner.getByRole("link", { name: "Portal", exact: true })).toBeVisible();

    await other.evaluate((key) => localStorage.removeItem(key), KEY);
    await expect(banner.getByRole("link", { name: "Login", exact: true })).toBeVisible();
  });

  test("treats an expired session that cannot be renewed as signed out", async ({ page }) => {
    const expired = JSON.stringify({ ...JSON.parse(session()), refresh_token: "", expires_at: 1 });
    await page.addInitScript(([key, value]) => localStorage.setItem(key!, value!), [KEY, expired]);
    await page.goto("/");
    await expect(page.getByRole("banner").getByRole("link", { name: "Login", exact: true })).toBeVisible();
  });
});
