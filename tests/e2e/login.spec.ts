/**
 * /login against the local stack (docs/product.md, Screens and routes: Login, Messages and errors): Auth's own messages, the
 * general one for an outage, the busy button, Remember me, and where sign-in leads.
 */
import { expect, test } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { createCustomer, signIn } from "./customers";

const SESSION_KEY = "sb-localhost-auth-token";

test("signs in with the right password and goes to the portal", async ({ page }) => {
  const customer = await createCustomer();
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  const stored = await page.evaluate((key) => localStorage.getItem(key), SESSION_KEY);
  expect(JSON.parse(stored!).user.email).toBe(customer.email);
});

test("shows Auth's message for a wrong password and stays on the page", async ({ page }) => {
  const customer = await createCustomer();
  await signIn(page, { ...customer, password: "not-the-password" });
  await expect(page.getByRole("alert")).toHaveText("Invalid login credentials");
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate((key) => localStorage.getItem(key), SESSION_KEY)).toBeNull();
  // The form stays usable for another try.
  await expect(page.getByRole("button", { name: "Sign In" })).toBeEnabled();
});

test("tells an unconfirmed account so", async ({ page }) => {
  const customer = await createCustomer({ confirmed: false });
  await signIn(page, customer);
  await expect(page.getByRole("alert")).toHaveText("Email not confirmed");
  await expect(page).toHaveURL(/\/login$/);
});

test("shows the general message when Auth cannot be reached", async ({ page }) => {
  const customer = await createCustomer();
  await page.route("**/auth/v1/token**", (route) => route.abort("connectionrefused"));
  await signIn(page, customer);
  await expect(page.getByRole("alert")).toHaveText("An error occurred during login");
});

test("disables Sign In with a spinner while signing in", async ({ page }) => {
  const customer = await createCustomer();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/auth/v1/token**", async (route) => {
    await held;
    await route.continue();
  });
  await signIn(page, customer);
  const button = page.getByRole("button", { name: "Sign In" });
  await expect(button).toBeDisabled();
  await expect(button).toHaveAttribute("aria-busy", "true");
  await expect(button.locator("svg")).toBeVisible();
  release();
  await expect(page).toHaveURL(/\/portal$/);
});

test("returns to the portal page that sent the visitor, and never off the portal", async ({
  page,
  browser,
  baseURL,
}) => {
  const customer = await createCustomer();
  await signIn(page, customer, { next: "/portal/settings/purchase-history" });
  await expect(page).toHaveURL(/\/portal\/settings\/purchase-history$/);

  // Another visitor, in a browser of their own (clearing this one's storage under the portal page
  // made the page send itself to /login while the test was going there).
  const other = await createCustomer();
  const context = await browser.newContext({ baseURL });
  const second = await context.newPage();
  await signIn(second, other, { next: "https://evil.example/portal" });
  await expect(second).toHaveURL(/\/portal$/);
  await context.close();
});

test("the password can be shown and hidden, and the page links to reset and programs", async ({ page }) => {
  await page.goto("/login");
  // The toggle works once the island runs (the Sign In button is enabled from then on).
  await expect(page.getByRole("button", { name: "Sign In" })).toBeEnabled();
  const password = page.getByLabel("Password", { exact: true });
  await password.fill("s3cret-phrase");
  await expect(password).toHaveAttribute("type", "password");
  const toggle = page.getByRole("button", { name: "Show password" });
  await toggle.click();
  await expect(password).toHaveAttribute("type", "text");
  await expect(page.getByRole("button", { name: "Hide password" })).toHaveAttribute("aria-pressed", "true");
  await page.getByRole("button", { name: "Hide password" }).click();
  await expect(password).toHaveAttribute("type", "password");
  await expect(page.getByRole("link", { name: "Forgot Password?" })).toHaveAttribute("href", "/forgot-password");
  await expect(page.getByRole("link", { name: "Explore our programs" })).toHaveAttribute("href", "/programs");
});

test("is usable by keyboard alone", async ({ page }) => {
  const customer = await createCustomer();
  await page.goto("/login");
  await page.getByLabel("Email").focus();
  await page.keyboard.type(customer.email);
  await page.keyboard.press("Tab");
  await page.keyboard.type(customer.password);
  // Sign In stays disabled until the form's script has run (text typed before is kept), so an
  // Enter before then submits nothing: press it once the button is available, as its user would.
  await expect(page.getByRole("button", { name: "Sign In" })).toBeEnabled();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/portal$/);
});

test.describe("Remember me", () => {
  test("checked, the session outlives the browser: a new context with the saved state is signed in", async ({
    page,
    browser,
  }) => {
    const customer = await createCustomer();
    await signIn(page, customer, { remember: true });
    await expect(page).toHaveURL(/\/portal$/);
    const saved = await page.context().storageState();

    const restarted = await browser.newContext({ storageState: saved });
    const again = await restarted.newPage();
    await again.goto("/programs");
    await expect(again.getByRole("banner").getByRole("link", { name: "Portal", exact: true })).toBeVisible();
    await restarted.close();
  });

  test("unchecked, the session lasts this browsing session only", async ({ page, browser }) => {
    const customer = await createCustomer();
    await signIn(page, customer, { remember: false });
    await expect(page).toHaveURL(/\/portal$/);
    expect(await page.evaluate((key) => localStorage.getItem(key), SESSION_KEY)).toBeNull();
    expect(await page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY)).not.toBeNull();
    // In this tab the marketing pages know the visitor is signed in, without supabase-js.
    await page.goto("/mindset");
    await expect(page.getByRole("banner").getByRole("link", { name: "Portal", exact: true })).toBeVisible();

    const restarted = await browser.newContext({ storageState: await page.context().storageState() });
    const again = await restarted.newPage();
    await again.goto("/mindset");
    await expect(again.getByRole("banner").getByRole("link", { name: "Login", exact: true })).toBeVisible();
    await restarted.close();
  });
});

test("the header on a marketing page shows Portal after sign-in", async ({ page }) => {
  const customer = await createCustomer();
  await page.goto("/");
  await expect(page.getByRole("banner").getByRole("link", { name: "Login", exact: true })).toBeVisible();
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  await page.goto("/");
  await expect(page.getByRole("banner").getByRole("link", { name: "Portal", exact: true })).toHaveAttribute(
    "href",
    "/portal",
  );
});

test("has no axe violations", async ({ page }) => {
  await page.goto("/login");
  await expect(page.getByRole("button", { name: "Sign In" })).toBeEnabled();
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations).toEqual([]);
});

test("the account pages load nothing from another origin (no third-party script where the session lives)", async ({
  page,
  baseURL,
}) => {
  const foreign: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol.startsWith("http") && url.origin !== new URL(baseURL!).origin) foreign.push(request.url());
  });
  for (const path of ["/login", "/forgot-password", "/reset-password"]) {
    await page.goto(path, { waitUntil: "networkidle" });
  }
  expect(foreign).toEqual([]);
});

test("a visitor who is signed in already is offered the portal, and may sign in as someone else", async ({ page }) => {
  const customer = await createCustomer();
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  await page.goto("/login");
  await expect(page.getByText(`You are signed in as ${customer.email}.`)).toBeVisible();
  await expect(page.getByRole("link", { name: "Go to your portal" })).toHaveAttribute("href", "/portal");

  const other = await createCustomer();
  await signIn(page, other);
  await expect(page).toHaveURL(/\/portal$/);
  await expect(
    page.getByRole("heading", { name: new RegExp(`Welcome back, ${other.email.split("@")[0]}`) }),
  ).toBeVisible();
});
