/**
 * Forgot and reset password against the local stack (docs/product.md §2, §4, §8): the e-mail from
 * supabase/templates/recovery.html through the outbox, the Continue step that keeps mail scanners
 * from spending the one-time token, every view of /reset-password, and Auth's fragment form.
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

/** The link of the newest invite e-mail to `email` (supabase/templates/invite.html), as the outbox holds it. */
async function inviteLink(page: Page, email: string) {
  const mail = await lastMailTo(page, email);
  const href = /href="([^"]*\/reset-password\?token_hash=[^"]+type=invite)"/.exec(mail.html)?.[1];
  expect(href, "the invite links to /reset-password with a token hash and type=invite").toBeDefined();
  return href!.replaceAll("&amp;", "&");
}

test("a buyer's invite: the e-mailed link, Continue, a first password, /login, sign-in, the portal", async ({
  page,
}) => {
  test.setTimeout(45_000);
  // As the Stripe webhook does for a new buyer: GoTrue's invite (POST /auth/v1/invite) e-mails the link.
  const email = `buyer.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;
  const { data, error } = await serviceClient().auth.admin.inviteUserByEmail(email);
  expect(error).toBeNull();
  expect(data.user?.email).toBe(email);

  const link = await inviteLink(page, email);
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
  await expect(page.getByRole("heading", { name: "Password set" })).toBeVisible();
  await page.waitForURL(/\/login$/, { timeout: 6_000 });

  await signIn(page, { id: data.user!.id, email, password: "first-secret" });
  await expect(page).toHaveURL(/\/portal$/);
  await expect(page.getByText(`Signed in as ${email}`)).toBeVisible();
});

test("an invite link already used shows Auth's message and the way to a new link", async ({ page }) => {
  const email = `buyer.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;
  expect((await serviceClient().auth.admin.inviteUserByEmail(email)).error).toBeNull();
  const link = await inviteLink(page, email);
  await page.goto(link);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByLabel("Password", { exact: true })).toBeVisible();

  const again = await page.context().newPage();
  await again.goto(link);
  await again.getByRole("button", { name: "Continue" }).click();
  await expect(again.getByRole("alert")).toHaveText("Email link is invalid or has expired");
  await expect(again.getByRole("link", { name: "Request New Reset Link" })).toHaveAttribute("href", "/forgot-password");
});
