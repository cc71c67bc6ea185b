/**
 * Program pages know an owner (src/components/owner/OwnerSwitch.astro): a signed-in visitor whose
 * completed order the database lets them read sees "Open the course", to the program's course in
 * the portal, where everyone else sees Buy Now, on the program's page and on /purchase-course.
 * Signed out, not an owner (a refunded or pending order owns nothing), with an expired token, or
 * without JavaScript: Buy Now, as the HTML has it. The swap moves nothing on the page.
 */
import { expect, type Locator, type Page, test } from "@playwright/test";
import { axeViolations } from "./axe";
import { createCustomer, type Customer, signIn } from "./customers";

const OS = {
  name: "Advisor OS Accelerator",
  page: "/programs/advisor-os-accelerator",
  course: "/portal/courses/os-accelerator",
};
/** The owner check's request (the portal reads the same view with another query). */
const ORDERS = /\/rest\/v1\/stripe_user_orders\?select=product_key&order_status=eq\.completed$/;

const main = (page: Page) => page.getByRole("main");
const openCourse = (page: Page, program: string) =>
  main(page).getByRole("link", { name: `Open the course ${program}` });
const buyNow = (page: Page, program: string) => main(page).getByRole("link", { name: `Buy Now ${program}` });
const card = (page: Page, program: string) =>
  main(page)
    .getByRole("listitem")
    .filter({ has: page.getByRole("heading", { name: program, exact: true }) });

/** Signs the customer in at /login, remembered, as they would. */
async function signedIn(page: Page, customer: Customer) {
  await signIn(page, customer);
  await expect(page).toHaveURL(/\/portal$/);
}

/** The requests the page makes for the caller's orders, from now on. */
function orderRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on("request", (request) => {
    if (ORDERS.test(request.url())) seen.push(request.url());
  });
  return seen;
}

/** Opens `path` and waits until the owner check would have answered: the load event, then the browser idle. */
async function openSettled(page: Page, path: string) {
  await page.goto(path);
  await page.waitForLoadState("load");
  await page.evaluate(() => new Promise((done) => requestIdleCallback(() => setTimeout(done, 100))));
  await page.waitForLoadState("networkidle");
}

test("an owner sees Open the course in place of Buy Now and the price, once the page has asked for their orders once", async ({
  page,
}) => {
  const customer = await createCustomer({
    orders: [
      { product: "OS_ACCELERATOR", status: "completed", cents: 299_900 },
      { product: "GROWTH_MINDSET", status: "refunded", cents: 30_000 },
    ],
  });
  await signedIn(page, customer);
  const asked = orderRequests(page);

  await page.goto(OS.page);
  await expect(openCourse(page, OS.name)).toBeVisible();
  await expect(openCourse(page, OS.name)).toHaveAttribute("href", OS.course);
  await expect(buyNow(page, OS.name)).toBeHidden();
  // The price line goes with the way to buy; the hero's other buttons stay.
  await expect(main(page).getByText("Or enroll in the program today")).toBeHidden();
  await expect(main(page).getByRole("link", { name: "Apply Now" }).first()).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);

  // /purchase-course: one request for the three programs, and only the owned one changes.
  asked.length = 0;
  await page.goto("/purchase-course");
  await expect(card(page, OS.name).getByRole("link", { name: `Open the course ${OS.name}` })).toHaveAttribute(
    "href",
    OS.course,
  );
  await expect(card(page, OS.name).getByRole("link", { name: `Buy Now ${OS.name}` })).toBeHidden();
  // A refunded order owns nothing.
  await expect(buyNow(page, "Growth Mindset Mastery")).toBeVisible();
  await expect(openCourse(page, "Growth Mindset Mastery")).toBeHidden();
  await page.waitForLoadState("networkidle");
  expect(asked).toHaveLength(1);

  await card(page, OS.name)
    .getByRole("link", { name: `Open the course ${OS.name}` })
    .click();
  await expect(page).toHaveURL(new RegExp(`${OS.course}$`));
  await expect(page.getByRole("heading", { level: 1, name: OS.name })).toBeVisible();
});

test("a signed-in visitor who does not own the program sees Buy Now once the answer is in (a refunded or pending order owns nothing)", async ({
  page,
}) => {
  const customer = await createCustomer({
    orders: [
      { product: "OS_ACCELERATOR", status: "refunded", cents: 299_900, daysAgo: 3 },
      { product: "OS_ACCELERATOR", status: "pending", cents: 299_900, daysAgo: 1 },
    ],
  });
  await signedIn(page, customer);
  for (const path of [OS.page, "/purchase-course"]) {
    const answered = page.waitForResponse((response) => ORDERS.test(response.url()));
    await page.goto(path);
    // The page did ask, with the visitor's token, and the database answered.
    expect((await answered).status(), path).toBe(200);
    await page.waitForLoadState("networkidle");
    await expect(buyNow(page, OS.name), path).toBeVisible();
    await expect(openCourse(page, OS.name), path).toBeHidden();
  }
});

test("signed out, nothing is asked and Buy Now stays", async ({ page }) => {
  const asked = orderRequests(page);
  for (const path of [OS.page, "/purchase-course"]) {
    await openSettled(page, path);
    await expect(buyNow(page, OS.name), path).toBeVisible();
    await expect(openCourse(page, OS.name), path).toBeHidden();
  }
  await expect(page.getByRole("banner").getByRole("link", { name: "Login" })).toBeVisible();
  expect(asked).toEqual([]);
});

test("an owner whose access token has expired sees Buy Now, and nothing is asked or renewed", async ({ page }) => {
  const customer = await createCustomer({
    orders: [{ product: "OS_ACCELERATOR", status: "completed", cents: 299_900 }],
  });
  await signedIn(page, customer);
  // On a page without supabase-js, so nothing renews it behind the test's back.
  await page.goto(OS.page);
  await expect(openCourse(page, OS.name)).toBeVisible();
  const stored = await page.evaluate(() => {
    const key = Object.keys(localStorage).find((k) => /^sb-.*-auth-token$/.test(k))!;
    const session = JSON.parse(localStorage.getItem(key)!) as { expires_at: number; refresh_token: string };
    session.expires_at = Math.floor(Date.now() / 1000) - 60;
    localStorage.setItem(key, JSON.stringify(session));
    return { key, value: localStorage.getItem(key) };
  });
  const asked = orderRequests(page);
  await openSettled(page, OS.page);
  await expect(buyNow(page, OS.name)).toBeVisible();
  await expect(openCourse(page, OS.name)).toBeHidden();
  expect(asked).toEqual([]);
  // Still signed in for the header (the session has a refresh token), and the session is untouched.
  await expect(page.getByRole("banner").getByRole("link", { name: "Portal" })).toBeVisible();
  expect(await page.evaluate((key) => localStorage.getItem(key), stored.key)).toBe(stored.value);
});

test("without JavaScript an owner's page is the HTML as built: Buy Now", async ({ page, browser }) => {
  const customer = await createCustomer({
    orders: [{ product: "OS_ACCELERATOR", status: "completed", cents: 299_900 }],
  });
  await signedIn(page, customer);
  const context = await browser.newContext({
    javaScriptEnabled: false,
    storageState: await page.context().storageState(),
  });
  try {
    const still = await context.newPage();
    for (const path of [OS.page, "/purchase-course"]) {
      await still.goto(path);
      await expect(buyNow(still, OS.name), path).toBeVisible();
      await expect(buyNow(still, OS.name), path).toHaveAttribute("href", "/checkout/OS_ACCELERATOR");
      await expect(openCourse(still, OS.name), path).toBeHidden();
    }
  } finally {
    await context.close();
  }
});

test.describe("at 390 px", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the owner's link takes the place of the way to buy, and nothing below it moves", async ({ page }) => {
    const customer = await createCustomer({
      orders: [{ product: "OS_ACCELERATOR", status: "completed", cents: 299_900 }],
    });
    await signedIn(page, customer);
    // The answer waits until the page has been measured as everyone sees it.
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    let asked!: () => void;
    const askedOnce = new Promise<void>((done) => (asked = done));
    await page.route(ORDERS, async (route) => {
      asked();
      await held;
      await route.continue();
    });
    const top = async (locator: Locator) => (await locator.boundingBox())!.y;

    await page.goto(OS.page);
    await askedOnce;
    // The first heading below the hero.
    const next = page.getByRole("heading", { level: 2, name: "Sound familiar?" });
    const before = await top(next);
    const link = await buyNow(page, OS.name).boundingBox();
    release();
    await expect(openCourse(page, OS.name)).toBeVisible();
    expect(await top(next)).toBe(before);
    // The same link, in the same place.
    const open = (await openCourse(page, OS.name).boundingBox())!;
    expect(open.height).toBe(link!.height);

    // /purchase-course: the button keeps its size, and the card's next link its place.
    await page.unrouteAll({ behavior: "ignoreErrors" });
    let releaseCard!: () => void;
    const heldCard = new Promise<void>((done) => (releaseCard = done));
    let askedCard!: () => void;
    const askedCardOnce = new Promise<void>((done) => (askedCard = done));
    await page.route(ORDERS, async (route) => {
      askedCard();
      await heldCard;
      await route.continue();
    });
    await page.goto("/purchase-course");
    await askedCardOnce;
    const os = card(page, OS.name);
    const details = os.getByRole("link", { name: /What is included/ });
    const detailsBefore = await top(details);
    const button = (await os.getByRole("link", { name: `Buy Now ${OS.name}` }).boundingBox())!;
    releaseCard();
    const opened = os.getByRole("link", { name: `Open the course ${OS.name}` });
    await expect(opened).toBeVisible();
    const box = (await opened.boundingBox())!;
    expect([box.x, box.y, box.width, box.height]).toEqual([button.x, button.y, button.width, button.height]);
    expect(await top(details)).toBe(detailsBefore);
  });
});
