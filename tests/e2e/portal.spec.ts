/**
 * /portal against the local stack (docs/product.md, Screens and routes: Portal, States and transitions, Roles and permissions): a new customer per test,
 * made by the service role with orders in every status, signed in through /login. The welcome,
 * the stat tiles, My Courses (Active, Processing, a refunded program gone), the empty state, the
 * Account menu by keyboard, logout, the guard and its way back, the loading state the page is
 * built with, valid HTML and axe.
 */
import { expect, type Page, test } from "@playwright/test";
import { HtmlValidate } from "html-validate";
import { axeViolations } from "./axe";
import { createCustomer, type OrderSeed, signIn } from "./customers";

const PORTAL_PAGES = ["/portal", "/portal/settings", "/portal/settings/purchase-history"];

/** Orders in every status the database knows, newest first by days ago. */
const EVERY_STATUS: OrderSeed[] = [
  { product: "AI_ACCELERATOR", status: "pending", cents: 1_500_000, daysAgo: 1 },
  { product: "OS_ACCELERATOR", status: "failed", cents: 299_900, daysAgo: 3 },
  { product: "OS_ACCELERATOR", status: "canceled", cents: 299_900, daysAgo: 5 },
  { product: "OS_ACCELERATOR", status: "refunded", cents: 299_900, daysAgo: 10 },
  { product: "GROWTH_MINDSET", status: "completed", cents: 30_000, daysAgo: 30 },
];

/** The stat tile of that name: its value. */
const stat = (page: Page, name: string) =>
  page
    .locator("dl > div")
    .filter({ has: page.getByText(name, { exact: true }) })
    .locator("dd");

test("shows the welcome, the stats and My Courses for orders in every status", async ({ page }) => {
  const customer = await createCustomer({ name: "dana", orders: EVERY_STATUS });
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);

  const local = customer.email.split("@")[0]!;
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Welcome back, ${local}`);
  await expect(page.getByText(`Signed in as ${customer.email}`)).toBeVisible();

  // Completed orders only: one program, $300; the account was created just now.
  await expect(stat(page, "Programs owned")).toHaveText("1");
  await expect(stat(page, "Total invested")).toHaveText("$300");
  const month = new Intl.DateTimeFormat("en-US", { month: "long", year: "numeric" }).format(new Date());
  await expect(stat(page, "Member since")).toHaveText(month);

  const courses = page.locator("section", { has: page.getByRole("heading", { name: "My Courses" }) });
  const owned = courses.getByRole("article");
  await expect(owned).toHaveCount(1);
  await expect(owned.getByRole("link", { name: "Growth Mindset Mastery" })).toHaveAttribute(
    "href",
    "/portal/courses/growth-mindset",
  );
  await expect(owned.getByText("Active", { exact: true })).toBeVisible();
  // The course opens in the member area, with the customer's progress: nothing done yet.
  await expect(owned).toContainText("0 of 18 lessons");
  await expect(owned).toContainText("Start course →");
  await expect(stat(page, "Lessons completed")).toHaveText("0 of 18");
  await expect(owned.locator("img")).toHaveAttribute("src", "/images/programs/growth-mindset.svg");
  await expect(owned).toContainText("Rewire the beliefs");

  // The pending order is Processing, apart and without a link; refunded, canceled and failed are nowhere.
  const awaiting = courses.getByRole("listitem").filter({ hasText: "AI Advisor Accelerator" });
  await expect(awaiting).toContainText("Processing");
  await expect(awaiting.getByRole("link")).toHaveCount(0);
  await expect(courses.getByRole("heading", { name: "Awaiting payment confirmation" })).toBeVisible();
  await expect(courses).not.toContainText("Advisor OS Accelerator");

  const main = page.getByRole("main");
  await expect(main.getByRole("link", { name: /Contact & Settings/ })).toHaveAttribute("href", "/portal/settings");
  await expect(main.getByRole("link", { name: /Purchase History/ })).toHaveAttribute(
    "href",
    "/portal/settings/purchase-history",
  );

  // The bench's mark: orders and profile shown, once.
  await expect
    .poll(() => page.evaluate(() => performance.getEntriesByName("portal-data-shown", "mark").length))
    .toBe(1);

  await page.getByRole("link", { name: "Growth Mindset Mastery" }).click();
  await expect(page).toHaveURL(/\/portal\/courses\/growth-mindset$/);
  await expect(page.getByRole("link", { name: "Start", exact: true })).toHaveAttribute(
    "href",
    "/portal/courses/growth-mindset/find-your-production-ceiling-belief",
  );
});

test("greets by the profile's first name; a first visit says Welcome and where the new program is", async ({
  page,
}) => {
  const customer = await createCustomer({
    fullName: "Dana Whitaker",
    orders: [{ product: "GROWTH_MINDSET", status: "completed", cents: 30_000 }],
  });
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Welcome back, Dana");
  await expect(page.getByText(`Dana Whitaker · ${customer.email}`)).toBeVisible();
  await expect(page.getByText("Your account is ready.")).toHaveCount(0);

  // Arriving from the set-password page (src/features/auth/ResetPassword.tsx): the first visit.
  await page.goto("/portal?welcome=1");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Welcome, Dana");
  const note = page.getByText("Your account is ready.");
  await expect(note).toHaveText(
    "Your account is ready. Growth Mindset Mastery is waiting for you under My Courses: start with its first lesson whenever you like.",
  );
  await expect(note.getByRole("link", { name: "Growth Mindset Mastery" })).toHaveAttribute(
    "href",
    "/portal/courses/growth-mindset",
  );
  expect(await axeViolations(page)).toEqual([]);
});

test("shows an empty My Courses leading to the programs for a customer without orders", async ({ page }) => {
  const customer = await createCustomer();
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  await expect(stat(page, "Programs owned")).toHaveText("0");
  await expect(stat(page, "Total invested")).toHaveText("$0");
  await expect(page.getByText("You don’t have any programs yet.")).toBeVisible();
  await expect(page.getByRole("link", { name: "Browse programs" })).toHaveAttribute("href", "/programs");
});

test("the Account menu works by keyboard: open, arrows, Escape back to its button, and on to Settings", async ({
  page,
}) => {
  const customer = await createCustomer();
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  const banner = page.getByRole("banner");
  await expect(banner.getByRole("link", { name: "Courses" })).toHaveAttribute("aria-current", "page");

  const account = banner.getByRole("button", { name: "Account" });
  const settings = banner.getByRole("link", { name: "Settings" });
  const logout = banner.getByRole("button", { name: "Logout" });
  await expect(account).toHaveAttribute("aria-expanded", "false");
  await expect(settings).toBeHidden();

  await account.focus();
  await page.keyboard.press("Enter");
  await expect(account).toHaveAttribute("aria-expanded", "true");
  await expect(settings).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(account).toHaveAttribute("aria-expanded", "false");
  await expect(account).toBeFocused();

  await page.keyboard.press("ArrowDown");
  await expect(account).toHaveAttribute("aria-expanded", "true");
  await expect(settings).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(logout).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(settings).toBeFocused();
  await page.keyboard.press("ArrowUp");
  await expect(logout).toBeFocused();
  await page.keyboard.press("Home");
  await expect(settings).toBeFocused();
  await page.keyboard.press("End");
  await expect(logout).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(settings).toBeHidden();
  await expect(account).toBeFocused();

  // Arrow up opens on the last item; Tab out of the menu closes it.
  await page.keyboard.press("ArrowUp");
  await expect(logout).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(account).toHaveAttribute("aria-expanded", "false");

  await account.focus();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/portal\/settings$/);
  await expect(page.getByRole("banner").getByRole("link", { name: "Courses" })).not.toHaveAttribute(
    "aria-current",
    "page",
  );
});

test("Logout signs out and goes home, where the header offers Login; the portal then asks to sign in", async ({
  page,
}) => {
  const customer = await createCustomer();
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  await page.getByRole("banner").getByRole("button", { name: "Account" }).click();
  await page.getByRole("banner").getByRole("button", { name: "Logout" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("banner").getByRole("link", { name: "Login", exact: true })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem("sb-localhost-auth-token"))).toBeNull();

  await page.goto("/portal");
  await expect(page).toHaveURL(/\/login\?next=%2Fportal$/);
});

test("a signed-out visitor of a portal page is sent to /login, and comes back there after signing in", async ({
  page,
}) => {
  const customer = await createCustomer();
  await page.goto("/portal/settings");
  await expect(page).toHaveURL(/\/login\?next=%2Fportal%2Fsettings$/);
  await page.getByLabel("Email").fill(customer.email);
  await page.getByLabel("Password", { exact: true }).fill(customer.password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(/\/portal\/settings$/);
  await expect(page.getByRole("heading", { level: 1, name: "Contact & Settings" })).toBeVisible();

  // With the session gone from storage, any portal page sends the visitor to sign in, naming itself.
  await page.evaluate(() => localStorage.clear());
  await page.goto("/portal/settings/purchase-history");
  await expect(page).toHaveURL(/\/login\?next=%2Fportal%2Fsettings%2Fpurchase-history$/);
});

test("each portal page is built in its loading state: skeletons, never a blank page, out of search engines", async ({
  browser,
}) => {
  // Without scripts the page stays as built.
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  for (const path of PORTAL_PAGES) {
    await page.goto(path);
    await expect(page.locator('meta[name="robots"]'), path).toHaveAttribute("content", "noindex");
    await expect(page.getByRole("heading", { level: 1 }), path).toBeVisible();
    expect(await page.locator('main [aria-hidden="true"].motion-safe\\:animate-pulse').count(), path).toBeGreaterThan(
      2,
    );
    await expect(
      page
        .getByRole("main")
        .getByText(/Loading/)
        .first(),
      path,
    ).toBeAttached();
    await expect(page.getByRole("banner").getByRole("button", { name: "Account" }), path).toBeVisible();
  }
  await context.close();
});

test("skeletons pulse only for visitors who allow motion", async ({ browser }) => {
  for (const reducedMotion of ["no-preference", "reduce"] as const) {
    const context = await browser.newContext({ javaScriptEnabled: false, reducedMotion });
    const page = await context.newPage();
    await page.goto("/portal");
    const animation = await page
      .locator('main [aria-hidden="true"].motion-safe\\:animate-pulse')
      .first()
      .evaluate((el) => getComputedStyle(el).animationName);
    expect(animation, reducedMotion).toBe(reducedMotion === "reduce" ? "none" : "pulse");
    await context.close();
  }
});

test("the portal's pages are valid HTML and load no third-party script", async ({ request, baseURL }) => {
  const validator = new HtmlValidate({
    extends: ["html-validate:recommended"],
    rules: { "no-inline-style": "off" },
  });
  const problems: string[] = [];
  for (const path of PORTAL_PAGES) {
    const html = await (await request.get(path)).text();
    const report = await validator.validateString(html, path);
    for (const result of report.results)
      for (const m of result.messages) problems.push(`${path}:${m.line}:${m.column} ${m.ruleId}: ${m.message}`);
    for (const [, src] of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)) {
      expect(new URL(src!, baseURL).origin, `${path} loads ${src}`).toBe(new URL(baseURL!).origin);
    }
  }
  expect(problems).toEqual([]);
});

test("the portal's pages load nothing from another origin when signed in", async ({ page, baseURL }) => {
  const customer = await createCustomer({ orders: EVERY_STATUS });
  const foreign: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).origin !== new URL(baseURL!).origin) foreign.push(request.url());
  });
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  for (const path of PORTAL_PAGES) {
    await page.goto(path);
    await expect(page.getByRole("main").locator('[aria-busy="true"]')).toHaveCount(0);
  }
  expect(foreign).toEqual([]);
});

test("axe finds no violations on /portal, with its data and with the Account menu open, at two sizes", async ({
  page,
}) => {
  const customer = await createCustomer({ orders: EVERY_STATUS });
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  await expect(page.getByText("Processing", { exact: true })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole("banner").getByRole("button", { name: "Account" }).click();
  expect(await axeViolations(page)).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await axeViolations(page)).toEqual([]);
});
