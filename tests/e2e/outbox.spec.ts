/**
 * The local stack's outbox, as a developer uses it: the password-reset e-mail that production
 * sends (supabase/templates/recovery.html), shown as its own document, whose link opens the
 * site's reset page with the token hash the page verifies.
 */
import { expect, test } from "@playwright/test";
import { apiKey } from "@advisor-accelerator/local-stack";

test("the outbox shows the reset e-mail as sent, and its link opens /reset-password with the token hash", async ({
  page,
  request,
  baseURL,
}) => {
  const email = `outbox.${Date.now()}@example.com`;
  const created = await request.post("/auth/v1/admin/users", {
    headers: { apikey: apiKey("service_role"), authorization: `Bearer ${apiKey("service_role")}` },
    data: { email, password: "outbox-password-1", email_confirm: true },
  });
  expect(created.ok()).toBe(true);
  // What the forgot-password page's resetPasswordForEmail sends.
  const recover = await request.post(
    `/auth/v1/recover?redirect_to=${encodeURIComponent(`${baseURL}/reset-password`)}`,
    {
      headers: { apikey: apiKey("anon") },
      data: { email },
    },
  );
  expect(recover.status()).toBe(200);

  await page.goto("/_local/outbox");
  const row = page.getByRole("row").filter({ hasText: email });
  await row.getByRole("link", { name: "Reset your Advisor Accelerator password" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Reset your Advisor Accelerator password" })).toBeVisible();
  const mail = page.frameLocator('iframe[title="Reset your Advisor Accelerator password"]');
  await expect(mail.getByText(`account of ${email}`)).toBeVisible();
  await mail.getByRole("link", { name: "Choose a new password" }).click();
  await expect(page).toHaveURL(new RegExp(`^${baseURL}/reset-password\\?token_hash=[0-9a-f]{56}&type=recovery$`));
});
