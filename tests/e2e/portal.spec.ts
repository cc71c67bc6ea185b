/**
 * /portal against the local stack (docs/product.md, Screens and routes: Portal, States and transitions, Roles and permissions): a new customer per test,
 * made by the service role with orders in every status, signed in through /login. The welcome,
 * the stat tiles, My Courses (Active, Processing, a refunded or disputed program listed as such,
 * with the day, and no way in), where a course card opens (the first lesson, the lesson where the
 * customer stopped, the next one not done, the outline once all is done), the empty state only
 * for a customer who never had a program, the Account menu by keyboard, logout, the guard and its way back, the loading state the page is
 * built with, valid HTML and axe.
 */
import { expect, type Page, test } from "@playwright/test";
import { HtmlValidate } from "html-validate";
import { axeViolations } from "./axe";
import { createCustomer, type OrderSeed, serviceClient, signIn } from "./customers";

const PORTAL_PAGES = ["/portal", "/portal/settings", "/portal/settings/purchase-history"];

/** Orders in every status the database knows, newest first by days ago. */
const EVERY_STATUS: OrderSeed[] = [
  { product: "AI_ACCELERATOR", status: "pending", cents: 1_500_000, daysAgo: 1 },
  { product: "OS_ACCELERATOR", status: "failed", cents: 299_900, daysAgo: 3 },
  { product: "OS_ACCELERATOR", status: "canceled", cents: 299_900, daysAgo: 5 },
  { product: "OS_ACCELERATOR", status: "refunded", cents: 299_900, daysAgo: 10 },
  { product: "GROWTH_MINDSET", status: "completed", cents: 30_000, daysAgo: 30 },
];

const GROWTH = "/portal/courses/growth-mindset";

/** Today in en-US, as the portal writes a day ("Dec 3, 2026"), in this machine's time zone, the browser's. */
const today = () =>
  new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric" }).format(new Date());

/** Writes a customer's progress in a Growth Mindset lesson, as the lesson page does (one upsert). */
async function progress(userId: string, slug: string, fields: { completed?: boolean; video_position?: number }) {
  const { error } = await serviceClient()
    .from("lesson_progress")
    .upsert({ user_id: userId, lesson_id: `growth-mindset/${slug}`, ...fields }, { onConflict: "user_id,lesson_id" });
  expect(error).toBeNull();
}

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
  // The course opens in the member area at its first lesson: nothing done yet.
  const card = owned.getByRole("link", { name: "Growth Mindset Mastery" });
  await expect(card).toHaveAttribute("href", `${GROWTH}/find-your-production-ceiling-belief`);
  await expect(card).toHaveAccessibleDescription("Start course");
  await expect(owned.getByText("Active", { exact: true })).toBeVisible();
  await expect(owned).toContainText("0 of 18 lessons");
  await expect(owned).toContainText("Start course →");
  await expect(stat(page, "Lessons completed")).toHaveText("0 of 18");
  await expect(owned.locator("img")).toHaveAttribute("src", "/images/programs/growth-mindset.svg");
  await expect(owned).toContainText("Rewire the beliefs");

  // The pending order is Processing, apart and without a link. The refunded program stays, apart,
  // said to be refunded and when, without a link; the canceled and failed orders of it add nothing.
  const awaiting = courses.getByRole("listitem").filter({ hasText: "AI Advisor Accelerator" });
  await expect(awaiting).toContainText("Processing");
  await expect(awaiting.getByRole("link")).toHaveCount(0);
  await expect(courses.getByRole("heading", { name: "Awaiting payment confirmation" })).toBeVisible();
  await expect(courses.getByRole("heading", { name: "Refunds and disputes" })).toBeVisible();
  const refunded = courses.getByRole("listitem").filter({ hasText: "Advisor OS Accelerator" });
  await expect(refunded).toHaveCount(1);
  await expect(refunded).toContainText(`Refunded on ${today()}`);
  await expect(refunded).toContainText("access ended");
  await expect(refunded.getByRole("link")).toHaveCount(0);

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

  await card.click();
  await expect(page).toHaveURL(/\/portal\/courses\/growth-mindset\/find-your-production-ceiling-belief$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Find the belief behind your production ceiling");
});

test("Continue course opens the lesson where the customer stopped, else the next one not done; the outline once all are", async ({
  page,
}) => {
  const customer = await createCustomer({
    orders: [{ product: "GROWTH_MINDSET", status: "completed", cents: 30_000 }],
  });
  // Progress as the lesson pages write it, one after another: module 1's first two lessons done,
  // then the video of module 2's first lesson watched to 1:35 (the third lesson left for later).
  await progress(customer.id, "find-your-production-ceiling-belief", { completed: true });
  await progress(customer.id, "put-money-beliefs-on-trial", { completed: true });
  await progress(customer.id, "name-your-call-reluctance", { video_position: 95 });
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);

  const tile = page.getByRole("article").filter({ hasText: "Growth Mindset Mastery" });
  const card = tile.getByRole("link", { name: "Growth Mindset Mastery" });
  await expect(tile).toContainText("2 of 18 lessons");
  await expect(tile).toContainText("Continue course →");
  await expect(card).toHaveAccessibleDescription("Continue course");
  await expect(card).toHaveAttribute("href", `${GROWTH}/name-your-call-reluctance`);
  await card.click();
  await expect(page).toHaveURL(/\/growth-mindset\/name-your-call-reluctance$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Name the kind of call reluctance you have");

  // That lesson done: the first one in course order not done, the one skipped.
  await progress(customer.id, "name-your-call-reluctance", { completed: true });
  await page.goto("/portal");
  await expect(card).toHaveAttribute("href", `${GROWTH}/score-your-top-producer-week`);
  await card.click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Score yourself like a top producer every week");

  // Every lesson done: the course's outline, which says so.
  const { data: lessons } = await serviceClient()
    .from("course_lessons")
    .select("id")
    .eq("product_key", "GROWTH_MINDSET")
    .is("removed_at", null);
  expect(lessons!.length).toBe(18);
  for (const { id } of lessons!) await progress(customer.id, id.slice("growth-mindset/".length), { completed: true });
  await page.goto("/portal");
  await expect(tile).toContainText("18 of 18 lessons");
  await expect(card).toHaveAttribute("href", GROWTH);
  await expect(tile).toContainText("Continue course →");
});

test("a customer whose only program was refunded, and one whose payment is disputed, see each listed as such, never 'no programs yet'", async ({
  page,
}) => {
  const customer = await createCustomer({
    orders: [
      { product: "OS_ACCELERATOR", status: "refunded", cents: 299_900, daysAgo: 12 },
      { product: "GROWTH_MINDSET", status: "disputed", cents: 30_000, daysAgo: 20 },
      { product: "OS_ACCELERATOR", status: "canceled", cents: 299_900, daysAgo: 14 },
    ],
  });
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
  const courses = page.locator("section", { has: page.getByRole("heading", { name: "My Courses" }) });
  await expect(courses.getByRole("heading", { name: "Refunds and disputes" })).toBeVisible();
  await expect(page.getByText("You don’t have any programs yet.")).toHaveCount(0);
  await expect(courses.getByText("No active programs yet.")).toBeVisible();
  await expect(courses.getByRole("article")).toHaveCount(0);
  await expect(courses.getByRole("link", { name: /Advisor OS Accelerator|Growth Mindset Mastery/ })).toHaveCount(0);

  const refunded = courses.getByRole("listitem").filter({ hasText: "Advisor OS Accelerator" });
  await expect(refunded).toContainText(`Refunded on ${today()}`);
  await expect(refunded).toContainText("access ended");
  await expect(refunded.locator("time")).toHaveAttribute("datetime", /^\d{4}-\d\d-\d\dT/);
  const disputed = courses.getByRole("listitem").filter({ hasText: "Growth Mindset Mastery" });
  await expect(disputed).toContainText(`Payment disputed on ${today()}`);
  await expect(disputed).toContainText("access paused during the dispute");
  // Nothing owned, nothing invested, no lessons to count: "0", not "0 of 0".
  await expect(stat(page, "Programs owned")).toHaveText("0");
  await expect(stat(page, "Total invested")).toHaveText("$0");
  await expect(stat(page, "Lessons completed")).toHaveText("0");
  expect(await axeViolations(page)).toEqual([]);

  // Purchase history says when, and its names lead to the program on My Courses (the canceled checkout's does not).
  await page.goto("/portal/settings/purchase-history");
  const rows = page.getByRole("main").locator("li[data-order]");
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText(`Refunded on ${today()}`);
  await expect(rows.nth(1)).not.toContainText("Refunded on");
  await expect(rows.nth(1).getByRole("heading", { level: 3 }).getByRole("link")).toHaveCount(0);
  await expect(rows.nth(2)).toContainText(`Payment disputed on ${today()}`);
  await rows.nth(2).getByRole("link", { name: "Growth Mindset Mastery" }).click();
  await expect(page).toHaveURL(/\/portal#program-growth-mindset$/);
  await expect(disputed).toBeFocused();
  await expect(disputed).toBeInViewport();
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
  // Cleared from a page that is not the portal's, which could send itself to /login meanwhile.
  await page.goto("/privacy-policy");
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
