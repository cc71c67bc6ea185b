/**
 * Buying a program end to end on the local stack, as a visitor does: the checkout page, the
 * real `stripe-checkout` function, the Stripe stand-in's hosted page, the success page, the
 * signed webhook, the set-password e-mail in the outbox, the Continue step, sign-in, and the
 * program in My Courses, its course open at once, and in purchase history. Then the ways it can go
 * otherwise: a declined card leaves nothing behind, a refund takes the program out of My Courses
 * and its lessons away.
 */
import { randomUUID } from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { lastMailTo, serviceClient, signIn } from "./customers";

const PROGRAMS = [
  { key: "GROWTH_MINDSET", name: "Growth Mindset Mastery", amount: "$300" },
  { key: "OS_ACCELERATOR", name: "Advisor OS Accelerator", amount: "$2,999" },
  { key: "AI_ACCELERATOR", name: "AI Advisor Accelerator", amount: "$15,000" },
];

const buyer = (name: string) => `${name}.${randomUUID().slice(0, 8)}@example.com`;

/** From the program's checkout page to Stripe's hosted page, paying with `card`. */
async function checkOut(page: Page, key: string, email: string, card = "4242 4242 4242 4242") {
  await page.goto(`/checkout/${key}`);
  await page.getByLabel(/e-?mail/i).fill(email);
  await page.getByRole("button", { name: "Complete Purchase" }).click();
  await page.waitForURL(/\/_local\/stripe\/checkout\/cs_test_/);
  await page.getByLabel("Card number").fill(card);
  await page.getByLabel("Expiration (MM / YY)").fill("12 / 34");
  await page.getByLabel("CVC").fill("123");
  await page.getByLabel("Cardholder name").fill("Dana Buyer");
  await page.getByRole("button", { name: "Pay" }).click();
}

/** Opens the set-password link, presses Continue and chooses `password`; /login follows. */
async function setPassword(page: Page, link: string, password: string) {
  await page.goto(link);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("heading", { name: "Set your password" })).toBeVisible();
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("Confirm password").fill(password);
  await page.getByRole("button", { name: "Set Password" }).click();
  await page.waitForURL(/\/login$/, { timeout: 8_000 });
}

/** The link of the set-password e-mail, once the webhook has sent it. */
async function setPasswordLink(page: Page, email: string) {
  const mail = await lastMailTo(page, email);
  expect(mail.subject).toBe("Your Advisor Accelerator account is ready: set your password");
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
    await expect(page.getByText(sessionId)).toBeVisible();

    const link = await setPasswordLink(page, email);
    expect(link).toContain("type=invite");
    await setPassword(page, link, "first-password");

    await signIn(page, { id: "", email, password: "first-password" });
    await expect(page).toHaveURL(/\/portal$/);
    const courses = page.locator("section", { has: page.getByRole("heading", { name: "My Courses" }) });
    await expect(courses.getByRole("link", { name: program.name })).toBeVisible();
    // Instant access: the course opens from My Courses, and its first lesson reads at once.
    await courses.getByRole("link", { name: program.name }).click();
    await expect(page.getByRole("heading", { level: 1, name: program.name })).toBeVisible();
    await page.getByRole("link", { name: "Start", exact: true }).click();
    await expect(page.getByRole("region", { name: "Lesson", exact: true })).toBeVisible();

    await page.goto("/portal/settings/purchase-history");
    const row = page.getByRole("main").locator("li[data-order]").filter({ hasText: program.name });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(program.amount);
    await expect(row).toContainText("Completed");
  });
}

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

test("a refund under the guarantee takes the program out of My Courses; purchase history says Refunded", async ({
  page,
}) => {
  test.setTimeout(60_000);
  const email = buyer("refund");
  await checkOut(page, "OS_ACCELERATOR", email);
  await page.waitForURL(/\/checkout\/success/);
  const sessionId = new URL(page.url()).searchParams.get("session_id")!;
  await setPassword(page, await setPasswordLink(page, email), "refund-password");
  await signIn(page, { id: "", email, password: "refund-password" });
  const courses = page.locator("section", { has: page.getByRole("heading", { name: "My Courses" }) });
  await expect(courses.getByRole("link", { name: "Advisor OS Accelerator" })).toBeVisible();

  const lesson = "/portal/courses/os-accelerator/write-your-three-year-vision";
  await page.goto(lesson);
  await expect(page.getByRole("region", { name: "Lesson", exact: true })).toBeVisible();

  // The business refunds from Stripe's dashboard (here the stand-in's); Stripe sends charge.refunded.
  await page.goto("/_local/stripe");
  await page.getByRole("row").filter({ hasText: sessionId }).getByRole("button", { name: "Refund" }).click();

  await expect(async () => {
    await page.goto("/portal");
    await expect(courses.getByRole("link", { name: "Advisor OS Accelerator" })).toHaveCount(0, { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  // The course went with it: its lessons are the buy page now.
  await page.goto(lesson);
  await expect(page.getByRole("heading", { name: "This lesson is part of Advisor OS Accelerator" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Lesson", exact: true })).toHaveCount(0);
  await page.goto("/portal/settings/purchase-history");
  const row = page.getByRole("main").locator("li[data-order]").filter({ hasText: "Advisor OS Accelerator" });
  await expect(row).toContainText("Refunded");
});
