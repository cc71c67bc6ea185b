/**
 * A coached offer from application to enrolment, against the local stack `npm start` runs
 * (docs/coached-offers.md): a lead sent from /get-started-ai, the demo admin's offer from the desk,
 * the applicant's e-mailed link at a phone's width, six monthly payments chosen and the first paid
 * with 4242 on Stripe's hosted page, the account's password set from the access e-mail, the course
 * open, purchase history at "1 of 6 paid" with Manage payment method, and the buyer's test clock
 * moved a month ahead on the Stripe stand-in's dashboard, which bills the second payment; then a
 * card that declines, saved through Manage payment method: the third payment fails, its e-mail goes
 * out, a month on the course is paused (My Courses and purchase history say why), and a good card
 * saved there pays it and opens the course again.
 */
import { expect, test } from "@playwright/test";
import { DEMO_STAFF } from "@advisor-accelerator/local-stack";
import { axeViolations } from "./axe";
import { lastMailTo, sendLead, signIn } from "./customers";

test("an applicant pays the AI offer by six monthly payments: the course opens, purchase history reads 1 of 6 paid, and a month on the clock bills the second", async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const lead = await sendLead(page, "/get-started-ai");
  await signIn(page, { id: "", ...DEMO_STAFF });
  await expect(page).toHaveURL(/\/portal$/);
  await page.goto(`/desk?q=${encodeURIComponent(lead.email)}`);
  await page.getByRole("row").filter({ hasText: lead.email }).getByRole("button", { name: lead.name }).click();
  const form = page.getByRole("form", { name: `Send ${lead.name} an offer` });
  await form.getByRole("button", { name: "Send the offer" }).click();
  await expect(form.getByRole("status")).toContainText(`Offer sent to ${lead.email}.`);
  const mail = await lastMailTo(page, lead.email, /^Your offer to join AI Advisor Accelerator$/);
  const link = /http:\/\/\S+\/offer\/[A-Za-z0-9_-]{43}/.exec(mail.text)![0];

  // The applicant, on their phone, in a browser of their own.
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const applicant = await context.newPage();
  await applicant.goto(link);
  const plan = applicant.getByRole("region", { name: "Six monthly payments" });
  await plan.getByRole("button", { name: "Start the plan: $6,000 today" }).click();
  await applicant.waitForURL(/\/_local\/stripe\/checkout\/cs_test_/);
  await expect(applicant.getByText("$6,000.00").first()).toBeVisible();
  await applicant.getByLabel("Card number").fill("4242 4242 4242 4242");
  await applicant.getByLabel("Expiration (MM / YY)").fill("12 / 34");
  await applicant.getByLabel("CVC").fill("123");
  await applicant.getByLabel("Cardholder name").fill("Morgan Applicant");
  await applicant.getByRole("button", { name: /Pay|Subscribe/ }).click();
  await applicant.waitForURL(/\/checkout\/success\?session_id=cs_test_/);
  await expect(applicant.getByRole("heading", { name: "Payment Successful!" })).toBeVisible();
  await expect(applicant.locator("#facts")).toContainText("AI Advisor Accelerator");

  // The access e-mail's set-password link, then the portal: the course is theirs.
  const access = await lastMailTo(applicant, lead.email, /^You now have AI Advisor Accelerator/);
  const setPassword = /href="([^"]*\/reset-password\?[^"]*)"/.exec(access.html)![1]!.replaceAll("&amp;", "&");
  await applicant.goto(setPassword);
  await applicant.getByRole("button", { name: "Continue" }).click();
  await applicant.getByLabel("Password", { exact: true }).fill("plan-buyer-2026");
  await applicant.getByLabel("Confirm password").fill("plan-buyer-2026");
  await applicant.getByRole("button", { name: "Set Password" }).click();
  await applicant.waitForURL(/\/portal\?welcome=1$/);
  const courses = applicant.locator("section", { has: applicant.getByRole("heading", { name: "My Courses" }) });
  await expect(courses.getByRole("link", { name: "AI Advisor Accelerator" })).toBeVisible();

  // Purchase history reads the plan as a person does, with a way to change the card.
  await applicant.goto("/portal/settings/purchase-history");
  const row = applicant.locator("li[data-order]").filter({ hasText: "AI Advisor Accelerator" });
  await expect(row).toContainText("$6,000");
  await expect(row).toContainText(/Six monthly payments: 1 of 6 paid, next \$6,000 on \w+ \d+/);
  await expect(row.getByRole("button", { name: "Manage payment method" })).toBeVisible();
  expect(await axeViolations(applicant)).toEqual([]);
  expect(await applicant.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
  await row.getByRole("button", { name: "Manage payment method" }).click();
  await applicant.waitForURL(/\/_local\/stripe\/portal\//);
  await expect(applicant.getByText("$6,000.00").first()).toBeVisible();

  // A month on the buyer's test clock (the stand-in's dashboard): the second payment is billed.
  await page.goto("/_local/stripe");
  await page
    .getByRole("row")
    .filter({ hasText: lead.email })
    .getByRole("button", { name: "Advance one month" })
    .click();
  await expect
    .poll(
      async () => {
        await applicant.goto("/portal/settings/purchase-history");
        return applicant.locator("li[data-order]").filter({ hasText: "AI Advisor Accelerator" }).innerText();
      },
      { timeout: 15_000 },
    )
    .toMatch(/2 of 6 paid/);
  // The desk's Offers view shows the same beside the offer's state.
  await page.goto("/desk?view=offers");
  await expect(page.getByRole("row").filter({ hasText: lead.email })).toContainText(
    /Paid\s*2 of 6 paid, next \$6,000 on/,
  );

  // A card that will decline, saved through Manage payment method; a month on, the third payment
  // fails and the buyer is e-mailed its page; a month after that (past the 14 days), the course
  // is paused, and purchase history says why.
  await row.getByRole("button", { name: "Manage payment method" }).click();
  await applicant.waitForURL(/\/_local\/stripe\/portal\//);
  await applicant.getByLabel("Card number").fill("4000 0000 0000 0341");
  await applicant.getByLabel("Expiration (MM / YY)").fill("12 / 34");
  await applicant.getByLabel("CVC").fill("123");
  await applicant.getByLabel("Cardholder name").fill("Morgan Applicant");
  await applicant.getByRole("button", { name: "Update payment method" }).click();
  await expect(applicant.getByText(/ending in 0341/)).toBeVisible();
  const advance = async () => {
    await page.goto("/_local/stripe");
    await page
      .getByRole("row")
      .filter({ hasText: lead.email })
      .getByRole("button", { name: "Advance one month" })
      .click();
  };
  await advance();
  const failed = await lastMailTo(applicant, lead.email, /did not go through$/);
  expect(failed.subject).toBe("Your AI Advisor Accelerator payment of $6,000 did not go through");
  await advance();
  await expect
    .poll(
      async () => {
        await applicant.goto("/portal/settings/purchase-history");
        return applicant.locator("li[data-order]").filter({ hasText: "AI Advisor Accelerator" }).innerText();
      },
      { timeout: 15_000 },
    )
    .toMatch(/Past due since .+\. Your access is paused until it is paid\./);
  await applicant.goto("/portal");
  await expect(applicant.getByRole("heading", { name: "Paused until a payment is made" })).toBeVisible();
  await expect(applicant.locator("#program-ai-accelerator")).toContainText(
    /AI Advisor Accelerator.*Payment past due since .+access paused until it is paid/,
  );
  await expect(courses.getByRole("link", { name: "AI Advisor Accelerator" })).toHaveCount(0);
  expect(await axeViolations(applicant)).toEqual([]);

  // Paid with a good card through Manage payment method (the portal pays the open invoices):
  // the course is open again at once.
  await applicant.goto("/portal/settings/purchase-history");
  await applicant.getByRole("button", { name: "Manage payment method" }).click();
  await applicant.waitForURL(/\/_local\/stripe\/portal\//);
  await applicant.getByLabel("Card number").fill("4242 4242 4242 4242");
  await applicant.getByLabel("Expiration (MM / YY)").fill("12 / 34");
  await applicant.getByLabel("CVC").fill("123");
  await applicant.getByLabel("Cardholder name").fill("Morgan Applicant");
  await applicant.getByRole("button", { name: "Update payment method" }).click();
  await expect(applicant.getByText(/ending in 4242/)).toBeVisible();
  await expect
    .poll(
      async () => {
        await applicant.goto("/portal");
        return courses.getByRole("link", { name: "AI Advisor Accelerator" }).count();
      },
      { timeout: 15_000 },
    )
    .toBe(1);
  await context.close();
});
