/**
 * Forgot and reset password against the local stack (docs/product.md, Screens and routes, States and transitions, Messages and errors): the e-mail from
 * supabase/templates/recovery.html through the outbox, the Continue step that keeps mail scanners
 * from spending the one-time token, every view of /reset-password, and Auth's fragment form. A
 * new buyer's set-password link (`type=invite`): their first password, then straight to the
 * portal's first visit; a spent link's words for someone who never had a password.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { createCustomer, lastMailTo, serviceClient, signIn } from "./customers";
import { axeViolations } from "./axe";

async function requestReset(page: Page, email: string) {
  await page.goto("/forgot-password");
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Send Reset Link" }).click();
}

/** The link of the newest reset e-mail to `email`, as the outbox holds it. */
async function resetLink(page: Page, email: string) {
  const mail = await lastMailTo(page, email);
  const href = /href="([^"]*\/reset-password\?token_hash=[^"]+)"/.exec(mail.html)?.[1];
  expect(href, "the e-mail links to /reset-password with a token hash").toBeDefined();
  return href!.replaceAll("&amp;", "&");
}

test("the whole reset: e-mail, Continue, new password, /login after 3 seconds, sign-in with it", async ({ page }) => {
  test.setTimeout(45_000);
  const customer = await createCustomer();
  await requestReset(page, customer.email);
  await expect(page.getByRole("heading", { name: "Check Your Email" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Back to Login" })).toHaveAttribute("href", "/login");

  const link = await resetLink(page, customer.email);
  // Opening the link (as a mail scanner does) spends nothing: the page waits for Continue.
  await page.goto(link);
  await expect(page.getByRole("button", { name: "Continue" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Choose a New Password");
  await expect(page).toHaveTitle("Reset password | Advisor Accelerator");
  await page.reload();
  await page.getByRole("button", { name: "Continue" }).click();

  const password = page.getByLabel("New password", { exact: true });
  const confirmation = page.getByLabel("Confirm new password");
  // The account the link is for, and the rule before any error.
  await expect(page.getByText(`Choose a new password for ${customer.email}.`)).toBeVisible();
  await expect(password).toHaveAccessibleDescription("At least 6 characters.");
  await password.fill("brand-new-secret");
  await confirmation.fill("brand-new-secreT");
  await page.getByRole("button", { name: "Update Password" }).click();
  await expect(page.getByRole("alert")).toHaveText("Passwords do not match");
  await password.fill("short");
  await confirmation.fill("short");
  await page.getByRole("button", { name: "Update Password" }).click();
  await expect(page.getByRole("alert")).toHaveText("Password must be at least 6 characters long");

  await password.fill("brand-new-secret");
  await confirmation.fill("brand-new-secret");
  await page.getByRole("button", { name: "Update Password" }).click();
  await expect(page.getByRole("heading", { name: "Password updated" })).toBeVisible();
  const shownAt = Date.now();
  await page.waitForURL(/\/login$/, { timeout: 6_000 });
  expect(Date.now() - shownAt).toBeGreaterThan(2_500);

  await signIn(page, { ...customer, password: "brand-new-secret" });
  await expect(page).toHaveURL(/\/portal$/);
});

test("a link already used shows Auth's message and the way to a new one", async ({ page }) => {
  const customer = await createCustomer();
  await requestReset(page, customer.email);
  await expect(page.getByRole("heading", { name: "Check Your Email" })).toBeVisible();
  const link = await resetLink(page, customer.email);
  await page.goto(link);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByLabel("New password", { exact: true })).toBeVisible();

  const again = await page.context().newPage();
  await again.goto(link);
  await again.getByRole("button", { name: "Continue" }).click();
  await expect(again.getByRole("alert")).toHaveText("Email link is invalid or has expired");
  await expect(again.getByRole("link", { name: "Request New Reset Link" })).toHaveAttribute("href", "/forgot-password");
});

test("the same confirmation whether or not the account exists, and no e-mail for a stranger", async ({ page }) => {
  const stranger = `nobody.${Date.now()}@example.com`;
  await requestReset(page, stranger);
  await expect(page.getByRole("heading", { name: "Check Your Email" })).toBeVisible();
  const mails = (await (await page.request.get("/_local/outbox.json")).json()) as { to: string }[];
  expect(mails.some((m) => m.to === stranger)).toBe(false);
});

test("a second request within the minute shows Auth's rate-limit message", async ({ page }) => {
  const customer = await createCustomer();
  await requestReset(page, customer.email);
  await expect(page.getByRole("heading", { name: "Check Your Email" })).toBeVisible();
  await requestReset(page, customer.email);
  await expect(page.getByRole("alert")).toHaveText(
    /^For security purposes, you can only request this after \d+ seconds?\.$/,
  );
});

test("shows the general message when Auth cannot be reached", async ({ page }) => {
  await page.route("**/auth/v1/recover**", (route) => route.abort("connectionrefused"));
  await requestReset(page, "ada@example.com");
  await expect(page.getByRole("alert")).toHaveText("An error occurred");
});

test.describe("/reset-password views", () => {
  test("an expired link shows its error_description, plus signs as spaces", async ({ page }) => {
    await page.goto(
      "/reset-password#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired",
    );
    await expect(page.getByRole("alert")).toHaveText("Email link is invalid or has expired");
    await expect(page.getByRole("link", { name: "Request New Reset Link" })).toBeVisible();
  });

  test("an error without a description shows the default text", async ({ page }) => {
    await page.goto("/reset-password?error=access_denied&error_code=otp_expired");
    await expect(page.getByRole("alert")).toHaveText(
      "The password reset link is invalid or has expired. Please request a new one.",
    );
  });

  test("a hostile error_description is shown as text, never run as HTML", async ({ page }) => {
    const hostile = '<img src=x onerror="window.__pwned=1"><b>bold</b>';
    await page.goto(`/reset-password?error_description=${encodeURIComponent(hostile)}`);
    await expect(page.getByRole("alert")).toHaveText(hostile);
    await expect(page.locator("main img, main b")).toHaveCount(0);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  test("no token and no session: the spec's message", async ({ page }) => {
    await page.goto("/reset-password");
    await expect(page.getByRole("alert")).toHaveText(
      "Invalid or expired reset link. Please request a new password reset.",
    );
    await expect(page.getByRole("link", { name: "Request New Reset Link" })).toBeVisible();
  });

  test("shows the verifying spinner until the session is known", async ({ page }) => {
    await page.route(/\/_astro\/.*\.js$/, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await route.continue();
    });
    await page.goto("/reset-password", { waitUntil: "commit" });
    await expect(page.getByRole("status").filter({ hasText: "Verifying your reset link" })).toBeVisible();
    await expect(page.getByRole("alert")).toBeVisible({ timeout: 10_000 });
  });

  test("Auth's fragment form (#access_token=…&type=recovery) opens the form", async ({ page, baseURL }) => {
    const customer = await createCustomer();
    const { data, error } = await serviceClient().auth.admin.generateLink({
      type: "recovery",
      email: customer.email,
      options: { redirectTo: `${baseURL}/reset-password` },
    });
    expect(error).toBeNull();
    await page.goto(data.properties!.action_link);
    // supabase-js takes the session from the fragment and clears it from the address.
    await expect(page).toHaveURL(/\/reset-password#?$/);
    const password = page.getByLabel("New password", { exact: true });
    await password.fill("fragment-secret");
    await page.getByLabel("Confirm new password").fill("fragment-secret");
    await page.getByRole("button", { name: "Update Password" }).click();
    await expect(page.getByRole("heading", { name: "Password updated" })).toBeVisible();
    await page.waitForURL(/\/login$/, { timeout: 6_000 });
    await signIn(page, { ...customer, password: "fragment-secret" });
    await expect(page).toHaveURL(/\/portal$/);
  });
});

test("the account pages have no axe violations", async ({ page }) => {
  for (const path of ["/forgot-password", "/reset-password", "/reset-password?token_hash=abc&type=recovery"]) {
    await page.goto(path);
    await expect(page.getByRole("button").or(page.getByRole("alert")).first()).toBeVisible();
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations, path).toEqual([]);
  }
});

/**
 * A new buyer's set-password link, as the product e-mails it: `${SITE_URL}/reset-password?token_hash=…&type=invite`.
 * Made here with Auth's admin API (`generateLink({ type: "invite" })`, which creates the invited
 * account and sends nothing), as the Stripe webhook makes the link it puts in the access e-mail.
 */
async function inviteLink(baseURL: string, email: string) {
  const { data, error } = await serviceClient().auth.admin.generateLink({ type: "invite", email });
  expect(error).toBeNull();
  expect(data.user?.email).toBe(email);
  const link = new URL("/reset-password", baseURL);
  link.searchParams.set("token_hash", data.properties!.hashed_token);
  link.searchParams.set("type", "invite");
  return { link: link.href, user: data.user! };
}

const newBuyer = () => `buyer.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;

test("a buyer's invite: Continue, a first password for their address, then straight to the portal's welcome", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(45_000);
  const email = newBuyer();
  const { link, user } = await inviteLink(baseURL!, email);
  // What they bought, as the webhook records it.
  const admin = serviceClient();
  const customerId = `cus_invite${user.id.slice(0, 8)}`;
  expect((await admin.from("stripe_customers").insert({ user_id: user.id, customer_id: customerId })).error).toBeNull();
  const order = await admin.from("stripe_orders").insert({
    checkout_session_id: `cs_test_invite_${user.id.slice(0, 8)}`,
    customer_id: customerId,
    product_key: "OS_ACCELERATOR",
    amount_subtotal: 299_900,
    amount_total: 299_900,
    currency: "usd",
    payment_status: "paid",
    status: "completed",
  });
  expect(order.error).toBeNull();

  // Opening the link spends nothing (a mail scanner): the page waits for Continue, worded for a new account.
  await page.goto(link);
  // The page's one heading and its tab title say so too (the static build wrote a reset's).
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Set Your Password");
  await expect(page.getByRole("heading", { name: "Choose a New Password" })).toHaveCount(0);
  await expect(page).toHaveTitle("Set your password | Advisor Accelerator");
  await expect(page.getByText("Welcome! Your account is ready.")).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  await page.reload();
  await page.getByRole("button", { name: "Continue" }).click();

  // verifyOtp({ token_hash, type: "invite" }) signed in; the token is gone from the address.
  const password = page.getByLabel("Password", { exact: true });
  await expect(password).toBeVisible();
  await expect(page).toHaveURL(/\/reset-password$/);
  // Whose password it is, and the rule before any error.
  await expect(page.getByText(`Choose a password for ${email}.`)).toBeVisible();
  await expect(password).toHaveAccessibleDescription("At least 6 characters.");
  await expect(page.getByRole("alert")).toBeHidden();
  const confirmation = page.getByLabel("Confirm password");
  await password.fill("first-secret");
  await confirmation.fill("first-secreT");
  await page.getByRole("button", { name: "Set Password" }).click();
  await expect(page.getByRole("alert")).toHaveText("Passwords do not match");
  await password.fill("short");
  await confirmation.fill("short");
  await page.getByRole("button", { name: "Set Password" }).click();
  await expect(page.getByRole("alert")).toHaveText("Password must be at least 6 characters long");
  // The form at rest, the pointer off the button (its hover colour is ui.tsx's, not this page's).
  await page.mouse.move(0, 0);
  expect(await axeViolations(page)).toEqual([]);

  await password.fill("first-secret");
  await confirmation.fill("first-secret");
  await page.getByRole("button", { name: "Set Password" }).click();

  // Signed in already: the portal's first visit, no second sign-in.
  await page.waitForURL(/\/portal\?welcome=1$/, { timeout: 6_000 });
  const local = email.split("@")[0]!;
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Welcome, ${local}`);
  await expect(page.getByText(`Signed in as ${email}`)).toBeVisible();
  const note = page.getByText("Your account is ready.");
  await expect(note).toContainText("Advisor OS Accelerator is waiting for you under My Courses");
  await expect(note.getByRole("link", { name: "Advisor OS Accelerator" })).toHaveAttribute(
    "href",
    "/portal/courses/os-accelerator",
  );
  // The set-password page is not in the history to go back to.
  await page.goBack();
  await expect(page).not.toHaveURL(/\/reset-password/);

  // The password works on its own later.
  await page.goto("/portal?welcome=1");
  await page.getByRole("button", { name: "Account" }).click();
  await page.getByRole("button", { name: "Logout" }).click();
  await expect(page).toHaveURL(/\/$/);
  await signIn(page, { id: user.id, email, password: "first-secret" });
  await expect(page).toHaveURL(/\/portal$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Welcome back, ${local}`);
});

test("an invite link already used says how to get a new one, in words for a new account", async ({ page, baseURL }) => {
  const { link } = await inviteLink(baseURL!, newBuyer());
  await page.goto(link);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByLabel("Password", { exact: true })).toBeVisible();

  const again = await page.context().newPage();
  await again.goto(link);
  await again.getByRole("button", { name: "Continue" }).click();
  await expect(again.getByRole("alert")).toHaveText(
    "This link has expired. Links work once and for an hour. Enter your e-mail on the password page and we will send a new one.",
  );
  await expect(again.getByRole("link", { name: "Send Me a New Link" })).toHaveAttribute("href", "/forgot-password");
  await expect(again.getByRole("link", { name: "Request New Reset Link" })).toHaveCount(0);
  expect(await axeViolations(again)).toEqual([]);
});
