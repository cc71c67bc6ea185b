/**
 * /checkout/{productKey} and /checkout/success against the local stack (docs/product.md, Screens and routes
 * Checkout and Payment success, §4, §5, §7, §8, §9): each program's built page, the key spellings
 * the static host rewrites to the key lookup page (public/_redirects), Product Not Found, the
 * e-mail rules, the request the page sends to the real `stripe-checkout` function, the failure
 * path, the success page's Order ID as text, keyboard use, axe, and what the pages load. After
 * the payment page: back from Stripe without paying (the e-mail kept, nothing charged), a
 * signed-in customer's own address, and a program already owned or still being paid for, as the
 * customer's orders and the function's 409 say.
 * The redirect to Stripe is not faked here: the end-to-end purchase test covers it.
 */
import { expect, type Page, type Request, test } from "@playwright/test";
import { CANCELLED_NOTICE, CHECKOUT_ERROR, PENDING_CHECKOUT_STORAGE_KEY } from "../../src/features/checkout/logic";
import { svgDataUri } from "../../src/integrations/critical-css.ts";
import { formatCents } from "../../packages/shared/money.ts";
import { orderReference } from "../../packages/shared/order-reference.ts";
import { loadPrograms } from "../unit/content-files";
import { axeViolations, VIEWPORTS } from "./axe";
import { createCustomer, signIn } from "./customers";
import { checkoutNote } from "./cohorts";
import { priceOf } from "./prices";

const PROGRAMS = loadPrograms();
const program = (key: string) => PROGRAMS.find((p) => p.checkoutKey === key)!;
const FUNCTION = "**/functions/v1/stripe-checkout";
/** The checkout function's refusal of a flood (functions/_shared/rate-limit.ts), but for its wait. */
const RATE_LIMITED = { error: "Too many requests in a short time. Please try again later.", code: "rate_limited" };

const isCheckoutCall = (request: Request) =>
  request.method() === "POST" && new URL(request.url()).pathname === "/functions/v1/stripe-checkout";

/**
 * The real function's answers (the local stack's Stripe stand-in makes the session), passed to the
 * page unchanged: read on their way, since the page navigates away before Playwright could read
 * a response body afterwards. Nothing is faked.
 */
async function recordAnswers(page: Page): Promise<unknown[]> {
  const answers: unknown[] = [];
  await page.route(FUNCTION, async (route) => {
    const response = await route.fetch();
    if (route.request().method() === "POST") answers.push({ status: response.status(), body: await response.json() });
    await route.fulfill({ response });
  });
  return answers;
}

/** The function answered a url, and the browser went there: `location.assign(url)`. */
async function expectSentToStripe(page: Page, answers: unknown[]) {
  await expect.poll(() => answers.length).toBe(1);
  const { status, body } = answers[0] as { status: number; body: { url?: unknown } };
  expect(status).toBe(200);
  expect(typeof body.url).toBe("string");
  await page.waitForURL(body.url as string);
}

/** The value beside a term of the order summary (Price, Subtotal, Total). */
const summaryValue = (page: Page, term: string) =>
  page
    .getByRole("region", { name: "Order Summary" })
    .locator("dl > div")
    .filter({ has: page.getByRole("term").getByText(term, { exact: true }) })
    .getByRole("definition");

/** The checkout page once its island runs: the purchase button exists and reacts to the e-mail. */
async function openCheckout(page: Page, path: string) {
  await page.goto(path);
  const email = page.getByLabel("Email");
  await expect(email).toBeEditable();
  // Hydrated: typing enables the button (it stays disabled until the island runs).
  await email.fill("x@example.com");
  await expect(page.getByRole("button", { name: "Complete Purchase" })).toBeEnabled();
  await email.fill("");
  return email;
}

/** The summary of `key`'s program as the page shows it: name, description, image, price, subtotal, total in en-US. */
async function expectSummary(page: Page, key: string) {
  const p = program(key);
  const summary = page.getByRole("region", { name: "Order Summary" });
  await expect(summary.getByRole("heading", { name: p.name })).toBeVisible();
  await expect(summary.getByText(p.description)).toBeVisible();
  const image = summary.getByRole("img", { name: p.imageAlt });
  // The program's image, as a file or, on the first screen of a built page, inlined by critical-css.mjs.
  const svg = await (await page.request.get(p.image)).text();
  expect([p.image, svgDataUri(svg)]).toContain(await image.getAttribute("src"));
  expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  const shown = formatCents(p.priceCents);
  for (const term of ["Price", "Subtotal", "Total"]) await expect(summaryValue(page, term)).toHaveText(shown);
}

test.describe("each program's checkout page", () => {
  for (const p of PROGRAMS) {
    test(`${p.checkoutKey}: name, description, image, price, subtotal and total in en-US, and the notes`, async ({
      page,
    }) => {
      const response = await page.goto(`/checkout/${p.checkoutKey}`);
      expect(response?.status()).toBe(200);
      await expect(page.getByRole("heading", { level: 1, name: "Checkout" })).toBeVisible();
      await expectSummary(page, p.checkoutKey);
      // What opens when: at once, or the buyer's cohort and its first day (tests/e2e/cohorts.ts).
      const first = checkoutNote(p.checkoutKey);
      if (first) await expect(page.getByText(first, { exact: true })).toBeVisible();
      else await expect(page.getByRole("heading", { name: "Enrolment is closed" })).toBeVisible();
      // What the buyer keeps, as the program's content says it: no "lifetime" promise of its own.
      await expect(page.getByText(p.access, { exact: true })).toBeVisible();
      await expect(page.getByText("30-day money-back guarantee", { exact: true })).toBeVisible();
      // The policy in full, which a disputed payment's evidence quotes (npm run stripe:dispute).
      const policy = page.locator("p", { hasText: /^Refund policy: if the program is not right for you/ });
      await expect(policy).toBeVisible();
      await expect(policy.getByRole("link", { name: "Terms of Service" })).toHaveAttribute("href", "/terms-of-service");
      await expect(page.getByRole("link", { name: "Back" })).toHaveAttribute("href", p.page);
      await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", "noindex");
    });
  }

  test("each program's total is its price in content/programs/, as money is shown", async ({ page }) => {
    for (const key of ["AI_ACCELERATOR", "OS_ACCELERATOR", "GROWTH_MINDSET"]) {
      await page.goto(`/checkout/${key}`);
      await expect(summaryValue(page, "Total")).toHaveText(priceOf(key));
    }
  });
});

test.describe("key spellings (trimmed, case-insensitive: docs/product.md, Business constants and limits)", () => {
  for (const [path, key] of [
    ["/checkout/growth_mindset%20", "GROWTH_MINDSET"],
    ["/checkout/ai_accelerator", "AI_ACCELERATOR"],
    ["/checkout/Os_Accelerator", "OS_ACCELERATOR"],
    ["/checkout/%20GROWTH_MINDSET", "GROWTH_MINDSET"],
  ] as const) {
    test(`${path} is ${program(key).name}, at the address as typed`, async ({ page }) => {
      const response = await page.goto(path);
      // The static host's rewrite: status 200 and no redirect (public/_redirects).
      expect(response?.status()).toBe(200);
      expect(response?.request().redirectedFrom()).toBeNull();
      await expectSummary(page, key);
      expect(new URL(page.url()).pathname).toBe(path);
      await expect(page.getByRole("button", { name: "Complete Purchase" })).toBeVisible();
    });
  }
});

test("an unknown key shows Product Not Found, and Return to Home goes home", async ({ page }) => {
  await page.goto("/checkout/PLATINUM_PLAN");
  await expect(page.getByRole("heading", { level: 1, name: "Product Not Found" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Complete Purchase" })).toHaveCount(0);
  await expect(page.getByLabel("Email")).toHaveCount(0);
  await page.getByRole("link", { name: "Return to Home" }).click();
  await expect(page).toHaveURL(/\/$/);
});

test.describe("the e-mail (docs/product.md, Validation rules)", () => {
  test("Complete Purchase is disabled while the e-mail is empty and enabled once one is typed", async ({ page }) => {
    const email = await openCheckout(page, "/checkout/OS_ACCELERATOR");
    const button = page.getByRole("button", { name: "Complete Purchase" });
    await expect(button).toBeDisabled();
    await email.pressSequentially("ada@example.com");
    await expect(button).toBeEnabled();
    await email.fill("");
    await expect(button).toBeDisabled();
    await expect(email).toHaveAttribute("type", "email");
    await expect(email).toHaveAttribute("required", "");
  });

  test("the browser's validation stops an address that is not an e-mail: nothing is sent", async ({ page }) => {
    const calls: string[] = [];
    page.on("request", (request) => {
      if (isCheckoutCall(request)) calls.push(request.url());
    });
    const email = await openCheckout(page, "/checkout/GROWTH_MINDSET");
    await email.fill("not-an-email");
    await page.getByRole("button", { name: "Complete Purchase" }).click();
    expect(await email.evaluate((input: HTMLInputElement) => input.validity.typeMismatch)).toBe(true);
    expect(await email.evaluate((input: HTMLInputElement) => input.validationMessage)).not.toBe("");
    await page.waitForTimeout(300);
    expect(calls).toEqual([]);
    await expect(page).toHaveURL(/\/checkout\/GROWTH_MINDSET$/);
  });

  test("text typed before the island ran counts: the button is enabled once it does", async ({ page }) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/_astro\/Checkout\.[^/]+\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto("/checkout/AI_ACCELERATOR");
    await page.getByLabel("Email").fill("early@example.com");
    await expect(page.getByRole("button", { name: "Complete Purchase" })).toBeDisabled();
    release();
    await expect(page.getByRole("button", { name: "Complete Purchase" })).toBeEnabled();
    await expect(page.getByLabel("Email")).toHaveValue("early@example.com");
  });
});

test("sends the spec's body to stripe-checkout, with the visit's first-touch attribution (docs/product.md, Calls)", async ({
  page,
  baseURL,
}) => {
  // The visit lands on the home page from a campaign, then goes to checkout at a loose key spelling.
  const answers = await recordAnswers(page);
  await page.goto("/?utm_source=newsletter&utm_medium=email&utm_campaign=spring");
  await openCheckout(page, "/checkout/growth_mindset%20");
  await page.getByLabel("Email").fill("  buyer@example.com ");
  const sent = page.waitForRequest(isCheckoutCall);
  await page.getByRole("button", { name: "Complete Purchase" }).click();
  const request = await sent;
  expect(request.postDataJSON()).toEqual({
    price_id: program("GROWTH_MINDSET").stripeLookupKey,
    mode: "payment",
    success_url: `${baseURL}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
    // The canonical key, whatever spelling the buyer arrived at.
    cancel_url: `${baseURL}/checkout/GROWTH_MINDSET`,
    customer_email: "buyer@example.com",
    attribution: { landing_page: "/", utm_source: "newsletter", utm_medium: "email", utm_campaign: "spring" },
  });
  // supabase-js calls with the public anon key (no session on this page).
  expect(request.headers()["authorization"]).toMatch(/^Bearer ey/);
  await expectSentToStripe(page, answers);
});

test("a direct visit sends no attribution but the landing page", async ({ page }) => {
  const answers = await recordAnswers(page);
  await openCheckout(page, "/checkout/AI_ACCELERATOR");
  await page.getByLabel("Email").fill("direct@example.com");
  const sent = page.waitForRequest(isCheckoutCall);
  await page.getByRole("button", { name: "Complete Purchase" }).click();
  const request = await sent;
  const body = request.postDataJSON() as { price_id: string; attribution: Record<string, string> };
  expect(body.price_id).toBe("ai_accelerator");
  expect(body.attribution).toEqual({ landing_page: "/checkout/AI_ACCELERATOR" });
  await expectSentToStripe(page, answers);
});

test.describe("when the checkout cannot start (docs/product.md, Messages and errors)", () => {
  const failures: [string, Parameters<Page["route"]>[1]][] = [
    ["the function answers 500", (route) => route.fulfill({ status: 500, json: { error: "boom" } })],
    ["the answer has no url", (route) => route.fulfill({ status: 200, json: {} })],
    ["the network fails", (route) => route.abort("connectionrefused")],
    [
      "this address has started too many checkouts (429 for an hour)",
      (route) => route.fulfill({ status: 429, json: { ...RATE_LIMITED, retry_after: 3_600 } }),
    ],
  ];
  for (const [name, answer] of failures) {
    test(`${name}: logged, the spec's message in the alert region, the button usable again`, async ({ page }) => {
      const errors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route(FUNCTION, async (route, request) => {
        if (request.method() === "OPTIONS") return route.continue();
        await held;
        return answer(route, request);
      });
      await openCheckout(page, "/checkout/OS_ACCELERATOR");
      await page.getByLabel("Email").fill("ada@example.com");
      const button = page.getByRole("button", { name: "Complete Purchase" });
      await button.click();

      // Submitting: spinner, button disabled and busy.
      await expect(button).toBeDisabled();
      await expect(button).toHaveAttribute("aria-busy", "true");
      await expect(button.locator("svg")).toBeVisible();
      release();

      await expect(page.getByRole("alert")).toHaveText(CHECKOUT_ERROR);
      await expect(button).toBeEnabled();
      await expect(button).toHaveAttribute("aria-busy", "false");
      await expect(page.getByLabel("Email")).toHaveValue("ada@example.com");
      await expect(page).toHaveURL(/\/checkout\/OS_ACCELERATOR$/);
      expect(errors.some((text) => text.startsWith("Checkout failed"))).toBe(true);
      // The page at rest, the pointer off the button (its hover colour is ui.tsx's).
      await page.mouse.move(0, 0);
      expect(await axeViolations(page)).toEqual([]);
    });
  }
});

test("a launch-day rush (the shared ceiling's 429 for a second) is sat out once: the buyer goes on to Stripe", async ({
  page,
}) => {
  // What functions/stripe-checkout/handler.ts answers when more buyers than Stripe allows start in
  // the same second; the tests' stack raises that ceiling, so the first answer is this one.
  const answers: unknown[] = [];
  const tries: number[] = [];
  await page.route(FUNCTION, async (route, request) => {
    if (request.method() !== "POST") return route.continue();
    tries.push(Date.now());
    if (tries.length === 1) return route.fulfill({ status: 429, json: { ...RATE_LIMITED, retry_after: 1 } });
    const response = await route.fetch();
    answers.push({ status: response.status(), body: await response.json() });
    return route.fulfill({ response });
  });
  await openCheckout(page, "/checkout/OS_ACCELERATOR");
  await page.getByLabel("Email").fill(`rush.${Date.now()}@example.com`);
  await page.getByRole("button", { name: "Complete Purchase" }).click();
  await expectSentToStripe(page, answers);
  expect(tries).toHaveLength(2);
  expect(tries[1]! - tries[0]!).toBeGreaterThanOrEqual(1_000);
});

test("loads supabase-js only when the buyer presses Complete Purchase", async ({ page }) => {
  const scripts: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(request.url());
  });
  await openCheckout(page, "/checkout/GROWTH_MINDSET");
  await page.waitForLoadState("networkidle");
  const bodies = await Promise.all(scripts.map(async (url) => (await page.request.get(url)).text()));
  for (const [i, body] of bodies.entries()) expect(body, scripts[i]).not.toMatch(/GoTrueClient/);
  const before = scripts.length;

  await page.route(FUNCTION, (route, request) =>
    request.method() === "OPTIONS" ? route.continue() : route.fulfill({ status: 500, json: { error: "held" } }),
  );
  await page.getByLabel("Email").fill("ada@example.com");
  await page.getByRole("button", { name: "Complete Purchase" }).click();
  await expect(page.getByRole("alert")).toHaveText(CHECKOUT_ERROR);
  const loaded = await Promise.all(scripts.slice(before).map(async (url) => (await page.request.get(url)).text()));
  expect(loaded.some((body) => /GoTrueClient/.test(body))).toBe(true);
});

test("Back returns to the site's page the buyer came from, else goes to the program's page", async ({ page }) => {
  await page.goto("/purchase-course");
  await page.getByRole("link", { name: "Buy Now Growth Mindset Mastery" }).click();
  await expect(page).toHaveURL(/\/checkout\/GROWTH_MINDSET$/);
  await page.getByLabel("Email").fill("x@example.com");
  // Enabled: the island runs, and with it Back's handler.
  await expect(page.getByRole("button", { name: "Complete Purchase" })).toBeEnabled();
  await page.getByRole("link", { name: "Back" }).click();
  await expect(page).toHaveURL(/\/purchase-course$/);

  // Opened directly (an e-mail, a bookmark): Back leads to the program's page.
  const direct = await page.context().newPage();
  await openCheckout(direct, "/checkout/GROWTH_MINDSET");
  await direct.getByRole("link", { name: "Back" }).click();
  await expect(direct).toHaveURL(new RegExp(`${program("GROWTH_MINDSET").page}$`));
});

test("keyboard alone completes the form", async ({ page }) => {
  const answers = await recordAnswers(page);
  await openCheckout(page, "/checkout/AI_ACCELERATOR");
  await page.locator("body").focus();
  const email = page.getByLabel("Email");
  for (let i = 0; i < 10 && !(await email.evaluate((el) => el === document.activeElement)); i++) {
    await page.keyboard.press("Tab");
  }
  await expect(email).toBeFocused();
  await page.keyboard.type("keys@example.com");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Complete Purchase" })).toBeFocused();
  const sent = page.waitForRequest(isCheckoutCall);
  await page.keyboard.press("Enter");
  const request = await sent;
  expect((request.postDataJSON() as { customer_email: string }).customer_email).toBe("keys@example.com");
  await expectSentToStripe(page, answers);
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the built page reads complete, and its button cannot send the form as a plain GET", async ({ page }) => {
    await page.goto("/checkout/OS_ACCELERATOR");
    await expectSummary(page, "OS_ACCELERATOR");
    await expect(page.getByRole("button", { name: "Complete Purchase" })).toBeDisabled();
  });

  test("the key lookup page says it needs JavaScript and links to the programs", async ({ request }) => {
    // Read from the HTML: Chromium with scripts disabled by Playwright still parses <noscript> as text.
    const html = await (await request.get("/checkout/os_accelerator")).text();
    const noscript = /<noscript>([\s\S]*?)<\/noscript>/.exec(html.slice(html.indexOf("<main")))?.[1] ?? "";
    expect(noscript).toContain("This checkout needs JavaScript to find your program.");
    expect(noscript).toMatch(/<a href="\/purchase-course"[^>]*>See all programs and prices<\/a>/);
  });
});

test.describe("/checkout/success (docs/product.md, Screens and routes: Payment success)", () => {
  test("a session it cannot confirm: thanks, the Order ID and the next steps, never a success it cannot vouch for", async ({
    page,
  }) => {
    // No such Checkout Session at Stripe: checkout-status answers 404 (the paid, processing and
    // failed views, from real payments, are in purchase.spec.ts).
    await page.goto("/checkout/success?session_id=cs_test_a1B2c3d4e5");
    await expect(page.getByRole("heading", { level: 1, name: "Thank you for your order" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Payment Successful!" })).toBeHidden();
    await expect(page.getByRole("heading", { name: "Check your e-mail" })).toBeVisible();
    await expect(page.getByText("Your account was created automatically")).toBeVisible();
    await expect(page.getByRole("heading", { name: "Access your course" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Go to the Portal" })).toHaveAttribute("href", "/portal");
    await expect(page.getByRole("link", { name: "Return to Home" })).toHaveAttribute("href", "/");
    // The Order ID is the session's order reference, what the e-mails and purchase history show.
    await expect(page.getByRole("term")).toHaveText("Order ID");
    await expect(page.getByRole("definition")).toHaveText(await orderReference("cs_test_a1B2c3d4e5"));
    await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", "noindex");
  });

  test("a hostile session_id is never HTML: the page shows its reference, as text", async ({ page }) => {
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const hostile = "<img src=x onerror=alert(1)>";
    await page.goto(`/checkout/success?session_id=${encodeURIComponent(hostile)}`);
    await expect(page.getByRole("definition")).toHaveText(await orderReference(hostile));
    await expect(page.locator("main img")).toHaveCount(0);
    await page.waitForLoadState("networkidle");
    expect(dialogs).toEqual([]);
  });

  test("at 390 px the Order ID is one line a person can read aloud, and its button copies it", async ({
    page,
    context,
    baseURL,
  }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
    await page.setViewportSize({ width: 390, height: 844 });
    const customer = await createCustomer({
      name: "order-id",
      orders: [{ product: "OS_ACCELERATOR", status: "completed", cents: 299_900 }],
    });
    const sessionId = customer.checkoutSessionIds![0]!;
    const reference = await orderReference(sessionId);
    await page.goto(`/checkout/success?session_id=${sessionId}`);
    await expect(page.getByRole("heading", { level: 1, name: "Payment Successful!" })).toBeVisible();

    // One identifier, the 8 characters the e-mails and purchase history show; the session id nowhere.
    await expect(page.getByRole("term").filter({ hasText: "Order ID" })).toBeVisible();
    const orderId = page.getByRole("definition").filter({ hasText: new RegExp(`^${reference}$`) });
    await expect(orderId).toBeVisible();
    await expect(page.getByRole("main")).not.toContainText(sessionId);
    await expect(page.getByRole("main")).not.toContainText("Order reference");
    // One line, whole (not cut off), inside the screen.
    const line = await orderId.evaluate((dd) => {
      const style = getComputedStyle(dd);
      const box = dd.getBoundingClientRect();
      return {
        height: box.height,
        lineHeight: parseFloat(style.lineHeight),
        cut: dd.scrollWidth > dd.clientWidth,
        right: box.right,
      };
    });
    expect(line.height).toBeLessThan(line.lineHeight * 1.5);
    expect(line.cut).toBe(false);
    expect(line.right).toBeLessThanOrEqual(390);

    // Selectable, and copied by its button, which says so.
    const copyButton = page.getByRole("button", { name: "Copy Order ID" });
    await expect(copyButton).toBeVisible();
    await copyButton.click();
    await expect(page.getByRole("status")).toHaveText("Copied");
    await expect(page.getByRole("button", { name: "Copied Order ID" })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(reference);
    await page.evaluate(() => navigator.clipboard.writeText(""));
    await orderId.selectText();
    expect(await page.evaluate(() => getSelection()?.toString())).toBe(reference);
    expect(await axeViolations(page)).toEqual([]);
  });

  test("the next steps fit the buyer: a password to set for a new account only", async ({ page, browser }) => {
    // Paid orders the webhook recorded: one of an account never used (a new buyer's), one of an
    // account in use (a password set), each opened signed out, as from another device.
    const newBuyer = await createCustomer({
      name: "new-buyer",
      confirmed: false,
      orders: [{ product: "GROWTH_MINDSET", status: "completed", cents: 30_000 }],
    });
    const returning = await createCustomer({
      name: "returning-buyer",
      orders: [{ product: "GROWTH_MINDSET", status: "completed", cents: 30_000 }],
    });
    const setPassword = page.getByRole("heading", { name: "Set your password" });
    const openCourse = page.getByRole("heading", { name: "Open your course" });

    await page.goto(`/checkout/success?session_id=${newBuyer.checkoutSessionIds![0]}`);
    await expect(page.getByRole("heading", { level: 1, name: "Payment Successful!" })).toBeVisible();
    await expect(setPassword).toBeVisible();
    await expect(page.getByText("the access e-mail has a link to set your password")).toBeVisible();
    await expect(openCourse).toBeHidden();

    await page.goto(`/checkout/success?session_id=${returning.checkoutSessionIds![0]}`);
    await expect(page.getByRole("heading", { level: 1, name: "Payment Successful!" })).toBeVisible();
    await expect(openCourse).toBeVisible();
    await expect(page.getByRole("heading", { name: "Check your e-mail" })).toBeVisible();
    await expect(page.getByText("Your receipt is on its way")).toBeVisible();
    await expect(setPassword).toBeHidden();
    await expect(page.getByText(/New here\?/)).toBeHidden();
    await expect(page.getByRole("link", { name: "Go to the Portal" })).toHaveAttribute("href", "/portal");

    // Signed in on this device: no password to set, even where the status cannot be read.
    const signedIn = await browser.newPage();
    await signIn(signedIn, returning);
    await signedIn.waitForURL(/\/portal/);
    await signedIn.goto("/checkout/success?session_id=cs_test_a1B2c3d4e5");
    await expect(signedIn.getByRole("heading", { level: 1, name: "Thank you for your order" })).toBeVisible();
    await expect(signedIn.getByRole("heading", { name: "Open your course" })).toBeVisible();
    await expect(signedIn.getByRole("heading", { name: "Set your password" })).toBeHidden();
    await signedIn.close();
    // Signed out, the same page keeps the step (telling a client to sign in as usual).
    await page.goto("/checkout/success?session_id=cs_test_a1B2c3d4e5");
    await expect(page.getByRole("heading", { level: 1, name: "Thank you for your order" })).toBeVisible();
    await expect(setPassword).toBeVisible();
  });

  test("without a session_id: the spec's page, with nothing to ask and no Order ID", async ({ page }) => {
    for (const path of ["/checkout/success", "/checkout/success?session_id="]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1, name: "Payment Successful!" })).toBeVisible();
      await expect(page.getByRole("heading", { name: "Check your e-mail" })).toBeVisible();
      await expect(page.getByText("Order ID")).toBeHidden();
      await expect(page.getByRole("definition")).toHaveCount(0);
      await expect(page.getByRole("button", { name: "Copy Order ID" })).toBeHidden();
    }
  });

  test("runs no island: no React, no supabase-js, only the script every page runs", async ({ page }) => {
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(request.url());
    });
    await page.goto("/checkout/success?session_id=cs_test_1", { waitUntil: "networkidle" });
    await expect(page.locator("astro-island")).toHaveCount(0);
    for (const url of scripts) {
      const body = await (await page.request.get(url)).text();
      expect(body, url).not.toMatch(/GoTrueClient|react\.transitional\.element/);
    }
  });
});

test("the checkout pages load nothing from another origin until the buyer is sent to Stripe", async ({
  page,
  baseURL,
}) => {
  const foreign: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol.startsWith("http") && url.origin !== new URL(baseURL!).origin) foreign.push(request.url());
  });
  for (const path of [
    "/checkout/AI_ACCELERATOR",
    "/checkout/growth_mindset%20",
    "/checkout/NOPE",
    "/checkout/success",
  ]) {
    await page.goto(path, { waitUntil: "networkidle" });
  }
  expect(foreign).toEqual([]);
});

test("the checkout pages stay out of the sitemap", async ({ request }) => {
  const sitemap = await (await request.get("/sitemap.xml")).text();
  expect(sitemap).not.toContain("/checkout");
});

for (const viewport of VIEWPORTS) {
  test(`axe finds no violations in any state (${viewport.width}px)`, async ({ page }) => {
    await page.setViewportSize(viewport);
    const problems: string[] = [];
    await openCheckout(page, "/checkout/AI_ACCELERATOR");
    await page.getByLabel("Email").fill("ada@example.com");
    problems.push(...(await axeViolations(page)).map((v) => `ready: ${v}`));
    await page.goto("/checkout/ai_accelerator");
    await expect(page.getByRole("button", { name: "Complete Purchase" })).toBeVisible();
    problems.push(...(await axeViolations(page)).map((v) => `key lookup: ${v}`));
    await page.goto("/checkout/NOPE");
    await expect(page.getByRole("heading", { name: "Product Not Found" })).toBeVisible();
    problems.push(...(await axeViolations(page)).map((v) => `not found: ${v}`));
    await page.goto("/checkout/success?session_id=cs_test_axe");
    problems.push(...(await axeViolations(page)).map((v) => `success: ${v}`));
    expect(problems).toEqual([]);
  });
}

test.describe("back from Stripe's page without paying", () => {
  /** From the checkout page to the Stripe stand-in's hosted page, with `email`. */
  async function leaveForStripe(page: Page, key: string, email: string) {
    await openCheckout(page, `/checkout/${key}`);
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Complete Purchase" }).click();
    await page.waitForURL(/\/_local\/stripe\/checkout\/cs_test_/);
  }

  test("the hosted page's Back link (the spec's cancel_url) keeps the e-mail and says nothing was charged", async ({
    page,
  }) => {
    await leaveForStripe(page, "OS_ACCELERATOR", "cancel@example.com");
    await page.getByRole("link", { name: /Back/ }).click();
    await expect(page).toHaveURL(/\/checkout\/OS_ACCELERATOR$/);
    await expect(page.getByRole("status").filter({ hasText: CANCELLED_NOTICE })).toBeVisible();
    await expect(page.getByLabel("Email")).toHaveValue("cancel@example.com");
    await expect(page.getByRole("button", { name: "Complete Purchase" })).toBeEnabled();
    // Calm, not an error.
    await expect(page.getByRole("alert")).toBeHidden();
    expect(await axeViolations(page)).toEqual([]);

    // Another program's checkout in the same tab knows nothing of it.
    await page.goto("/checkout/GROWTH_MINDSET");
    await expect(page.getByRole("button", { name: "Complete Purchase" })).toBeVisible();
    await expect(page.getByLabel("Email")).toHaveValue("");
    await expect(page.getByText(CANCELLED_NOTICE)).toHaveCount(0);
  });

  test("the browser's Back button does the same", async ({ page }) => {
    await leaveForStripe(page, "GROWTH_MINDSET", "back.button@example.com");
    await page.goBack();
    await expect(page).toHaveURL(/\/checkout\/GROWTH_MINDSET$/);
    await expect(page.getByText(CANCELLED_NOTICE)).toBeVisible();
    await expect(page.getByLabel("Email")).toHaveValue("back.button@example.com");
    const button = page.getByRole("button", { name: "Complete Purchase" });
    await expect(button).toBeEnabled();
    await expect(button).toHaveAttribute("aria-busy", "false");
  });

  test("a new submit forgets it, and so does time: a record hours old says nothing", async ({ page }) => {
    await leaveForStripe(page, "AI_ACCELERATOR", "again@example.com");
    await page.getByRole("link", { name: /Back/ }).click();
    await expect(page.getByText(CANCELLED_NOTICE)).toBeVisible();

    await page.route(FUNCTION, (route, request) =>
      request.method() === "OPTIONS" ? route.continue() : route.fulfill({ status: 500, json: { error: "held" } }),
    );
    await page.getByRole("button", { name: "Complete Purchase" }).click();
    await expect(page.getByRole("alert")).toHaveText(CHECKOUT_ERROR);
    await expect(page.getByText(CANCELLED_NOTICE)).toHaveCount(0);
    expect(await page.evaluate((key) => sessionStorage.getItem(key), PENDING_CHECKOUT_STORAGE_KEY)).toBeNull();

    // A checkout that left four hours ago is not coming back from Stripe: no notice, no e-mail.
    await page.evaluate(
      ([key, at]) =>
        sessionStorage.setItem(key, JSON.stringify({ key: "AI_ACCELERATOR", email: "old@example.com", at })),
      [PENDING_CHECKOUT_STORAGE_KEY, Date.now() - 4 * 3_600_000] as const,
    );
    await page.reload();
    await expect(page.getByRole("button", { name: "Complete Purchase" })).toBeVisible();
    await expect(page.getByLabel("Email")).toHaveValue("");
    await expect(page.getByText(CANCELLED_NOTICE)).toHaveCount(0);
  });
});

test.describe("a signed-in customer", () => {
  test("buys with their account's e-mail, shown read-only, and may sign out to use another", async ({ page }) => {
    const customer = await createCustomer({ name: "signed" });
    await signIn(page, customer);
    await expect(page).toHaveURL(/\/portal$/);

    const answers = await recordAnswers(page);
    await page.goto("/checkout/GROWTH_MINDSET");
    const email = page.getByLabel("Email");
    await expect(email).toHaveValue(customer.email);
    await expect(email).not.toBeEditable();
    await expect(page.getByText(`Signed in as ${customer.email}.`)).toBeVisible();
    const button = page.getByRole("button", { name: "Complete Purchase" });
    await expect(button).toBeEnabled();
    expect(await axeViolations(page)).toEqual([]);

    // Not them: signing out here leaves an empty field for their own address.
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(email).toBeEditable();
    await expect(email).toHaveValue("");
    await expect(email).toBeFocused();
    await expect(button).toBeDisabled();
    await expect(page.getByText("Signed in as")).toHaveCount(0);
    await page.reload();
    await expect(page.getByLabel("Email")).toBeEditable();
    await expect(page.getByLabel("Email")).toHaveValue("");

    // Signed in again, the purchase goes out with the account's address.
    await signIn(page, customer);
    await expect(page).toHaveURL(/\/portal$/);
    await page.goto("/checkout/GROWTH_MINDSET");
    await expect(page.getByLabel("Email")).toHaveValue(customer.email);
    const sent = page.waitForRequest(isCheckoutCall);
    await page.getByRole("button", { name: "Complete Purchase" }).click();
    expect(((await sent).postDataJSON() as { customer_email: string }).customer_email).toBe(customer.email);
    await expectSentToStripe(page, answers);
  });

  test("who owns the program is sent to it, not charged twice; one whose bank payment clears is told so", async ({
    page,
  }) => {
    // The demo customer (supabase/seed.sql): Growth Mindset completed, AI Accelerator pending and unpaid.
    await signIn(page, { id: "", email: "demo@advisoraccelerator.com", password: "advisor-demo-2026" });
    await expect(page).toHaveURL(/\/portal$/);
    const calls: string[] = [];
    page.on("request", (request) => {
      if (isCheckoutCall(request)) calls.push(request.url());
    });

    await page.goto("/checkout/GROWTH_MINDSET");
    const details = page.getByRole("region", { name: "You already own this" });
    await expect(details).toBeVisible();
    await expect(details).toContainText("Growth Mindset Mastery is already on your account.");
    await expect(details.getByRole("link", { name: "Open Growth Mindset Mastery" })).toHaveAttribute(
      "href",
      "/portal/courses/growth-mindset",
    );
    await expect(page.getByRole("button", { name: "Complete Purchase" })).toHaveCount(0);
    await expect(page.getByLabel("Email")).toHaveCount(0);
    await expect(details.getByText("Signed in as demo@advisoraccelerator.com.")).toBeVisible();
    // The order summary stays: what it is they own.
    await expect(page.getByRole("region", { name: "Order Summary" })).toContainText(priceOf("GROWTH_MINDSET"));
    expect(await axeViolations(page)).toEqual([]);

    // The key lookup page knows it too.
    await page.goto("/checkout/growth_mindset%20");
    await expect(page.getByRole("region", { name: "You already own this" })).toBeVisible();

    await page.goto("/checkout/AI_ACCELERATOR");
    const clearing = page.getByRole("region", { name: "Your payment is clearing" });
    await expect(clearing).toContainText(
      "Your bank payment for AI Advisor Accelerator on your account is still clearing.",
    );
    await expect(clearing.getByRole("link", { name: "Go to your portal" })).toHaveAttribute("href", "/portal");
    await expect(page.getByRole("button", { name: "Complete Purchase" })).toHaveCount(0);

    // A program they do not have: the form, with their address.
    await page.goto("/checkout/OS_ACCELERATOR");
    await expect(page.getByLabel("Email")).toHaveValue("demo@advisoraccelerator.com");
    await expect(page.getByRole("button", { name: "Complete Purchase" })).toBeEnabled();

    await page.getByRole("link", { name: "Back" }).waitFor();
    await page.goto("/checkout/GROWTH_MINDSET");
    await page.getByRole("link", { name: "Open Growth Mindset Mastery" }).click();
    await expect(page).toHaveURL(/\/portal\/courses\/growth-mindset$/);
    await expect(page.getByRole("heading", { level: 1, name: "Growth Mindset Mastery" })).toBeVisible();
    expect(calls).toEqual([]);
  });
});

test.describe("an address that has an account, not signed in (the function's 409)", () => {
  test("says Sign in to continue and nothing of what it owns; signing in comes back to the checkout", async ({
    page,
  }) => {
    const answers = await recordAnswers(page);
    await openCheckout(page, "/checkout/GROWTH_MINDSET");
    await page.getByLabel("Email").fill("demo@advisoraccelerator.com");
    await page.getByRole("button", { name: "Complete Purchase" }).click();

    const details = page.getByRole("region", { name: "Sign in to continue" });
    await expect(details).toBeVisible();
    await expect(details.getByRole("heading", { name: "Sign in to continue" })).toBeFocused();
    expect(answers).toEqual([
      { status: 409, body: { error: expect.any(String) as unknown, code: "sign_in_required" } },
    ]);
    await expect(details).toContainText("demo@advisoraccelerator.com already has an account with us.");
    // What the account owns is for its signed-in owner only.
    await expect(details).not.toContainText(/already own|clearing/i);
    await expect(page.getByRole("alert")).toBeHidden();
    await expect(page.getByRole("button", { name: "Complete Purchase" })).toHaveCount(0);
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "Use a different e-mail" }).click();
    await expect(page.getByLabel("Email")).toBeFocused();
    await expect(page.getByLabel("Email")).toHaveValue("");
    await expect(page.getByRole("button", { name: "Complete Purchase" })).toBeDisabled();

    // A program it is paying for by bank debit: the same answer, nothing about the payment.
    await openCheckout(page, "/checkout/AI_ACCELERATOR");
    await page.getByLabel("Email").fill("demo@advisoraccelerator.com");
    await page.getByRole("button", { name: "Complete Purchase" }).click();
    await expect(page.getByRole("region", { name: "Sign in to continue" })).not.toContainText(/clearing/i);

    // Sign in leads back to this checkout, where its owner is told.
    await openCheckout(page, "/checkout/GROWTH_MINDSET");
    await page.getByLabel("Email").fill("demo@advisoraccelerator.com");
    await page.getByRole("button", { name: "Complete Purchase" }).click();
    await page.getByRole("link", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/login\?next=%2Fcheckout%2FGROWTH_MINDSET$/);
    await page.getByLabel("Email").fill("demo@advisoraccelerator.com");
    await page.getByLabel("Password", { exact: true }).fill("advisor-demo-2026");
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page).toHaveURL(/\/checkout\/GROWTH_MINDSET$/);
    await expect(page.getByRole("region", { name: "You already own this" })).toContainText(
      "Growth Mindset Mastery is already on your account.",
    );
  });
});
