/**
 * Buying a program end to end on the local stack, as a visitor does: the checkout page, the
 * real `stripe-checkout` function, the Stripe stand-in's hosted page, the success page (program,
 * amount, address, order reference), the signed webhook, the access e-mail in the outbox with the
 * new buyer's set-password link, Stripe's receipt, the Continue step, the portal's first visit
 * (signed in by the link), and the program in My Courses, its course open at once, and in
 * purchase history. Then the ways it can go otherwise: a bank debit processing then paid or
 * failed, a returning customer's second purchase, a declined card that leaves nothing behind, a
 * refund that takes the lessons away with one e-mail saying so, the program staying on My Courses
 * as refunded, with the day, and purchase history leading to it.
 */
import { randomUUID } from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { orderReference } from "../../packages/shared/order-reference.ts";
import { lastMailTo, serviceClient } from "./customers";
import { priceOf } from "./prices";

const PROGRAMS = [
  { key: "GROWTH_MINDSET", name: "Growth Mindset Mastery", amount: priceOf("GROWTH_MINDSET") },
  { key: "OS_ACCELERATOR", name: "Advisor OS Accelerator", amount: priceOf("OS_ACCELERATOR") },
  { key: "AI_ACCELERATOR", name: "AI Advisor Accelerator", amount: priceOf("AI_ACCELERATOR") },
];

const buyer = (name: string) => `${name}.${randomUUID().slice(0, 8)}@example.com`;

/** From the program's checkout page to Stripe's hosted page, paying with `card` (or by bank debit). */
async function checkOut(
  page: Page,
  key: string,
  email: string,
  card: string | "bank" = "4242 4242 4242 4242",
  signedIn = false,
) {
  await page.goto(`/checkout/${key}`);
  const field = page.getByLabel(/e-?mail/i);
  // A signed-in customer's address is theirs: filled in, read-only, once the page knows them.
  if (signedIn) {
    await expect(field).toHaveValue(email);
    await expect(field).not.toBeEditable();
  } else await field.fill(email);
  await page.getByRole("button", { name: "Complete Purchase" }).click();
  await page.waitForURL(/\/_local\/stripe\/checkout\/cs_test_/);
  if (card === "bank") {
    await page.getByLabel("US bank account").check();
    await page.getByLabel("Account holder name").fill("Dana Buyer");
  } else {
    await page.getByLabel("Card number").fill(card);
    await page.getByLabel("Expiration (MM / YY)").fill("12 / 34");
    await page.getByLabel("CVC").fill("123");
    await page.getByLabel("Cardholder name").fill("Dana Buyer");
  }
  await page.getByRole("button", { name: "Pay" }).click();
}

/** The outbox's e-mails to `email` (newest first). */
async function mailsTo(page: Page, email: string) {
  const mails = (await (await page.request.get("/_local/outbox.json")).json()) as { to: string; subject: string }[];
  return mails.filter((m) => m.to === email);
}

/** Presses a button of the session's row on the Stripe stand-in's dashboard (Settle payment, Fail payment, Refund). */
async function onStripeDashboard(page: Page, sessionId: string, button: string) {
  await page.goto("/_local/stripe");
  await page.getByRole("row").filter({ hasText: sessionId }).getByRole("button", { name: button }).click();
}

/** Opens the set-password link, presses Continue and chooses `password`; the portal's first visit follows, signed in. */
async function setPassword(page: Page, link: string, password: string) {
  await page.goto(link);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("heading", { name: "Set your password" })).toBeVisible();
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("Confirm password").fill(password);
  await page.getByRole("button", { name: "Set Password" }).click();
  await page.waitForURL(/\/portal\?welcome=1$/, { timeout: 8_000 });
  // Greeted by the name given on Stripe's page (checkOut's cardholder), not the e-mail's local part.
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Welcome, Dana");
}

/** The set-password link of the new buyer's access e-mail, once the webhook has sent it. */
async function setPasswordLink(page: Page, email: string) {
  const mail = await lastMailTo(page, email, /^You now have /);
  expect(mail.subject).toMatch(/^You now have .+: set your password to start$/);
  const href = /href="([^"]*\/reset-password\?[^"]*)"/.exec(mail.html)?.[1];
  expect(href, "the e-mail links to /reset-password").toBeDefined();
  return href!.replaceAll("&amp;", "&");
}

for (const program of PROGRAMS) {
  test(`buys ${program.name}: pay, success page, e-mail, password, portal`, async ({ page }) => {
    test.setTimeout(60_000);
    const email = buyer(program.key.toLowerCase());
    await checkOut(page, program.key, email);

    await page.waitForURL(/\/checkout\/success\?session_id=cs_test_/);
    const sessionId = new URL(page.url()).searchParams.get("session_id")!;
    await expect(page.getByRole("heading", { name: "Payment Successful!" })).toBeVisible();
    const facts = page.locator("#facts");
    await expect(facts).toContainText(program.name);
    await expect(facts).toContainText(program.amount);
    await expect(facts).toContainText(email);
    // The Order ID is the order reference, the one purchase history shows below.
    const reference = await orderReference(sessionId);
    await expect(page.getByRole("term").filter({ hasText: "Order ID" })).toBeVisible();
    await expect(page.getByRole("definition").filter({ hasText: new RegExp(`^${reference}$`) })).toBeVisible();
    // A new account: the step that says where to set its password.
    await expect(page.getByRole("heading", { name: "Set your password" })).toBeVisible();

    // One e-mail to act on (access, with the set-password link) and Stripe's receipt.
    const link = await setPasswordLink(page, email);
    await expect
      .poll(async () => (await mailsTo(page, email)).map((m) => m.subject.replace(/#[\d-]+$/, "#")).sort())
      .toEqual([`You now have ${program.name}: set your password to start`, "Your receipt from Advisor Accelerator #"]);
    expect(link).toContain("type=invite");
    await setPassword(page, link, "first-password");

    const courses = page.locator("section", { has: page.getByRole("heading", { name: "My Courses" }) });
    await expect(courses.getByRole("link", { name: program.name })).toBeVisible();
    // Instant access: "Start course →" on My Courses opens the course's first lesson, which reads at once.
    await expect(courses.getByRole("article")).toContainText("Start course →");
    await courses.getByRole("link", { name: program.name }).click();
    await expect(page).toHaveURL(/\/portal\/courses\/[a-z-]+\/[a-z-]+$/);
    await expect(page.getByRole("region", { name: "Lesson", exact: true })).toBeVisible();

    await page.goto("/portal/settings/purchase-history");
    const row = page.getByRole("main").locator("li[data-order]").filter({ hasText: program.name });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(program.amount);
    await expect(row).toContainText("Completed");
    await expect(row).toContainText(reference);
    await expect(row.getByRole("link", { name: /View receipt/ })).toHaveAttribute(
      "href",
      /\/_local\/stripe\/receipts\/ch_/,
    );
  });
}

test("a bank debit: 'Payment processing' until it clears, then paid, with the access e-mail only then", async ({
  page,
}) => {
  test.setTimeout(60_000);
  const email = buyer("bank");
  await checkOut(page, "GROWTH_MINDSET", email, "bank");
  await page.waitForURL(/\/checkout\/success\?session_id=cs_test_/);
  const success = page.url();
  const sessionId = new URL(success).searchParams.get("session_id")!;
  await expect(page.getByRole("heading", { level: 1, name: "Payment processing" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Payment Successful!" })).toBeHidden();
  await expect(page.getByRole("main")).toContainText(`We e-mail ${email} when it clears`);
  expect((await mailsTo(page, email)).filter((m) => m.subject.startsWith("You now have"))).toEqual([]);

  await onStripeDashboard(page, sessionId, "Settle payment");
  // The page answers from the order the webhook records (functions/checkout-status/handler.ts): once
  // the access e-mail is out, the order is completed, and the page says so.
  await lastMailTo(page, email, /^You now have Growth Mindset Mastery/);
  await page.goto(success);
  await expect(page.getByRole("heading", { level: 1, name: "Payment Successful!" })).toBeVisible();
  await expect(page.locator("#facts")).toContainText(priceOf("GROWTH_MINDSET"));
});

test("a bank debit that fails: 'Payment failed', one e-mail saying so, a way to try again", async ({ page }) => {
  test.setTimeout(60_000);
  const email = buyer("bounced");
  await checkOut(page, "OS_ACCELERATOR", email, "bank");
  await page.waitForURL(/\/checkout\/success\?session_id=cs_test_/);
  const success = page.url();
  await expect(page.getByRole("heading", { level: 1, name: "Payment processing" })).toBeVisible();

  await onStripeDashboard(page, new URL(success).searchParams.get("session_id")!, "Fail payment");
  // Once the webhook has recorded the failure (its e-mail is out), the page says so.
  await expect
    .poll(async () => (await mailsTo(page, email)).map((m) => m.subject))
    .toEqual(["Your payment for Advisor OS Accelerator did not go through"]);
  await page.goto(success);
  await expect(page.getByRole("heading", { level: 1, name: "Payment failed" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Try again" })).toHaveAttribute("href", "/checkout/OS_ACCELERATOR");
});

test("a returning customer's second purchase: no set-password step or link, one access e-mail, the course at once", async ({
  page,
  browser,
}) => {
  test.setTimeout(90_000);
  const email = buyer("returning");
  await checkOut(page, "GROWTH_MINDSET", email);
  await page.waitForURL(/\/checkout\/success/);
  await setPassword(page, await setPasswordLink(page, email), "returning-password");

  // Signed in now: the checkout knows them (their address filled in, read-only).
  await checkOut(page, "AI_ACCELERATOR", email, undefined, true);
  await page.waitForURL(/\/checkout\/success/);
  // The success page asks no password of them: straight to their course.
  await expect(page.getByRole("heading", { level: 1, name: "Payment Successful!" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Open your course" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Set your password" })).toBeHidden();
  const success = page.url();
  const access = await lastMailTo(page, email, /^You now have AI Advisor Accelerator/);
  expect(access.subject).toBe("You now have AI Advisor Accelerator");
  expect(access.html).not.toContain("reset-password");
  expect((await mailsTo(page, email)).filter((m) => /set your password/.test(m.subject))).toHaveLength(1);
  // Nor on another device, signed out: the order, recorded now, belongs to an account in use.
  const elsewhere = await browser.newPage();
  await elsewhere.goto(success);
  await expect(elsewhere.getByRole("heading", { level: 1, name: "Payment Successful!" })).toBeVisible();
  await expect(elsewhere.getByRole("heading", { name: "Open your course" })).toBeVisible();
  await expect(elsewhere.getByRole("heading", { name: "Set your password" })).toBeHidden();
  await elsewhere.close();
  const open = /href="([^"]*\/portal\/courses\/ai-advisor-accelerator)"/.exec(access.html)?.[1];
  expect(open).toBeDefined();
  await page.goto(new URL(open!).pathname);
  await expect(page.getByRole("heading", { level: 1, name: "AI Advisor Accelerator" })).toBeVisible();
});

test("a declined card stays on Stripe's page with its message, and leaves no order, account or e-mail", async ({
  page,
}) => {
  const email = buyer("declined");
  await checkOut(page, "GROWTH_MINDSET", email, "4000 0000 0000 0002");
  await expect(page.getByRole("alert")).toHaveText("Your card was declined.");
  await expect(page).toHaveURL(/\/_local\/stripe\/checkout\/cs_test_/);

  const admin = serviceClient();
  const { data } = await admin.rpc("auth_user_id_by_email", { p_email: email });
  expect(data).toBeNull();
  const mails = (await (await page.request.get("/_local/outbox.json")).json()) as { to: string }[];
  expect(mails.filter((m) => m.to === email)).toHaveLength(0);
});

test("a card that asks for 3-D Secure: the bank's step on Stripe's page, then paid; failed, the buyer stays and pays with another card", async ({
  page,
}) => {
  test.setTimeout(60_000);
  const email = buyer("secure");
  await checkOut(page, "GROWTH_MINDSET", email, "4000 0025 0000 3155");
  await expect(page).toHaveURL(/\/_local\/stripe\/checkout\/cs_test_\w+\/authenticate/);
  await page.getByRole("button", { name: "Complete authentication" }).click();
  await page.waitForURL(/\/checkout\/success\?session_id=cs_test_/);
  await expect(page.getByRole("heading", { level: 1, name: "Payment Successful!" })).toBeVisible();
  await lastMailTo(page, email, /^You now have Growth Mindset Mastery/);

  const refused = buyer("secure-failed");
  await checkOut(page, "GROWTH_MINDSET", refused, "4000 0025 0000 3155");
  await page.getByRole("button", { name: "Fail authentication" }).click();
  await expect(page.getByRole("alert")).toHaveText(
    "We are unable to authenticate your payment method. Please choose a different payment method and try again.",
  );
  await expect(page).toHaveURL(/\/_local\/stripe\/checkout\/cs_test_/);
  const { data } = await serviceClient().rpc("auth_user_id_by_email", { p_email: refused });
  expect(data).toBeNull();
  // Another card on the same page pays, as on Stripe's page (it was once posted to the
  // authentication step and silently dropped).
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiration (MM / YY)").fill("12 / 34");
  await page.getByLabel("CVC").fill("123");
  await page.getByLabel("Cardholder name").fill("Dana Buyer");
  await page.getByRole("button", { name: "Pay" }).click();
  await page.waitForURL(/\/checkout\/success\?session_id=cs_test_/);
  await expect(page.getByRole("heading", { level: 1, name: "Payment Successful!" })).toBeVisible();
  await lastMailTo(page, refused, /^You now have Growth Mindset Mastery/);
});

test("a refund under the guarantee ends the course: My Courses says Refunded on the day and access ended; purchase history says Refunded and leads there", async ({
  page,
}) => {
  test.setTimeout(60_000);
  const email = buyer("refund");
  await checkOut(page, "OS_ACCELERATOR", email);
  await page.waitForURL(/\/checkout\/success/);
  const sessionId = new URL(page.url()).searchParams.get("session_id")!;
  await setPassword(page, await setPasswordLink(page, email), "refund-password");
  const courses = page.locator("section", { has: page.getByRole("heading", { name: "My Courses" }) });
  await expect(courses.getByRole("link", { name: "Advisor OS Accelerator" })).toBeVisible();

  const lesson = "/portal/courses/os-accelerator/write-your-three-year-vision";
  await page.goto(lesson);
  await expect(page.getByRole("region", { name: "Lesson", exact: true })).toBeVisible();

  // The business refunds from Stripe's dashboard (here the stand-in's); Stripe sends charge.refunded.
  await onStripeDashboard(page, sessionId, "Refund");
  await expect
    .poll(async () =>
      (await mailsTo(page, email)).filter((m) => m.subject === "Your refund for Advisor OS Accelerator"),
    )
    .toHaveLength(1);
  const today = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric" }).format(
    new Date(),
  );

  await expect(async () => {
    await page.goto("/portal");
    await expect(courses.getByRole("link", { name: "Advisor OS Accelerator" })).toHaveCount(0, { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  // The program stays, said to be refunded and when, with no way into its course; never "no programs yet".
  const refunded = courses.getByRole("listitem").filter({ hasText: "Advisor OS Accelerator" });
  await expect(courses.getByRole("heading", { name: "Refunds and disputes" })).toBeVisible();
  await expect(refunded).toContainText(`Refunded on ${today}`);
  await expect(refunded).toContainText("access ended");
  await expect(refunded.getByRole("link")).toHaveCount(0);
  await expect(courses.getByRole("article")).toHaveCount(0);
  await expect(page.getByText("You don’t have any programs yet.")).toHaveCount(0);
  await expect(courses.getByText("No active programs yet.")).toBeVisible();
  const stat = (name: string) =>
    page
      .locator("dl > div")
      .filter({ has: page.getByText(name, { exact: true }) })
      .locator("dd");
  await expect(stat("Programs owned")).toHaveText("0");
  await expect(stat("Lessons completed")).toHaveText("0");

  // The course went with it: its lessons are the buy page now.
  await page.goto(lesson);
  await expect(page.getByRole("heading", { name: "This lesson is part of Advisor OS Accelerator" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Lesson", exact: true })).toHaveCount(0);
  await page.goto("/portal/settings/purchase-history");
  const row = page.getByRole("main").locator("li[data-order]").filter({ hasText: "Advisor OS Accelerator" });
  await expect(row.locator("[data-tone]")).toHaveText("Refunded");
  await expect(row).toContainText(`Refunded on ${today}`);
  // Its name leads back to the program on My Courses, which takes the focus there.
  await row.getByRole("link", { name: "Advisor OS Accelerator" }).click();
  await expect(page).toHaveURL(/\/portal#program-os-accelerator$/);
  await expect(refunded).toBeFocused();
  await expect(refunded).toContainText(`Refunded on ${today}`);
});
