/**
 * /desk against the local stack that `npm start` runs (docs/operations.md, "The team and its
 * roles"): the demo admin supabase/seed.sql puts on the team finds a lead just sent from
 * /get-started and marks it contacted, reads the demo customer's progress, and exports the
 * students; a coach sees the students only; a customer who types /desk is told the page is for
 * the team, and a signed-out visitor is asked to sign in. Keyboard, axe at 390 and 1280 px.
 */
import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { DEMO_STAFF, DEMO_USER } from "@advisor-accelerator/local-stack";
import { axeViolations } from "./axe";
import { createCustomer, lastMailTo, sendLead, serviceClient, signIn } from "./customers";

/** The demo customer of supabase/seed.sql. */
const DEMO_ID = "5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f";
const demoAdmin = { id: "", ...DEMO_STAFF };
const demoCustomer = { id: DEMO_ID, ...DEMO_USER };

test("the demo admin finds the lead just sent, marks it contacted, and the change is kept with who made it", async ({
  page,
}) => {
  const lead = await sendLead(page);
  await signIn(page, demoAdmin);
  await expect(page).toHaveURL(/\/portal$/);
  await page.getByRole("link", { name: "Desk", exact: true }).click();
  await expect(page).toHaveURL(/\/desk$/);
  await expect(page.getByRole("heading", { name: "Leads" })).toBeVisible();

  await page.getByLabel("Search by name or e-mail").fill(lead.email);
  const row = page.getByRole("row").filter({ hasText: lead.email });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("newsletter · winter-webinar");
  await expect(row).toContainText("New");
  await expect(page).toHaveURL(new RegExp(`q=${encodeURIComponent(lead.email).replace(/\./g, "\\.")}`));

  await row.getByRole("button", { name: lead.name }).click();
  await expect(row.getByRole("button", { name: lead.name })).toHaveAttribute("aria-expanded", "true");
  await expect(page.getByText("Growing past my first 100 households.")).toBeVisible();
  await page.getByLabel("Status", { exact: true }).last().selectOption("contacted");
  await page.getByLabel("Note").fill("Left a voicemail; try again Tuesday.");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  await expect(
    page.getByText(`Contacted — “Left a voicemail; try again Tuesday.” by ${DEMO_STAFF.email}`),
  ).toBeVisible();
  await expect(row).toContainText("Contacted");

  // Kept: after a reload, the same search from the address shows it contacted.
  await page.reload();
  await expect(page.getByRole("row").filter({ hasText: lead.email })).toContainText("Contacted");
  // And the status filter finds it among the contacted.
  await page.getByLabel("Status", { exact: true }).selectOption("contacted");
  await expect(page.getByRole("row").filter({ hasText: lead.email })).toHaveCount(1);

  // Back undoes one filter at a time, and the search box follows the address.
  await page.goBack();
  await expect(page.getByLabel("Status", { exact: true })).toHaveValue("");
  await expect(page.getByLabel("Search by name or e-mail")).toHaveValue(lead.email);
  await page.goBack();
  await expect(page).toHaveURL(/\/desk$/);
  await expect(page.getByLabel("Search by name or e-mail")).toHaveValue("");
  await page.waitForTimeout(500);
  await expect(page).toHaveURL(/\/desk$/);
});

test("the demo admin reads the demo customer's progress, three lessons into Growth Mindset Mastery, and exports the students", async ({
  page,
}) => {
  await signIn(page, demoAdmin);
  await expect(page).toHaveURL(/\/portal$/);
  await page.goto("/desk?view=students");
  await page.getByLabel("Program").selectOption({ label: "Growth Mindset Mastery" });
  await expect(page).toHaveURL(/program=GROWTH_MINDSET/);
  await expect(page.getByRole("table", { name: "Students" })).toBeVisible();
  await expect(page.locator("[aria-busy=true]")).toHaveCount(0);

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export students (CSV)" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe("students.csv");
  const csv = readFileSync((await file.path())!, "utf8");
  const [header, ...lines] = csv.trimEnd().split("\r\n");
  expect(header).toBe(
    "Name,E-mail,Program,Cohort,Purchased,Status,Lessons completed,Lessons,Last lesson,Last activity,Last sign-in",
  );
  const demo = lines.find((line) => line.includes(DEMO_USER.email));
  expect(demo).toMatch(/^Dana Whitaker,demo@advisoraccelerator\.com,Growth Mindset Mastery,,[^,]+,completed,3,\d+,/);
  expect(lines.every((line) => line.includes(",Growth Mindset Mastery,"))).toBe(true);

  // The student's page: lesson by lesson.
  await page.goto(`/desk?view=students&student=${DEMO_ID}`);
  await expect(page.getByRole("heading", { name: "Dana Whitaker" })).toBeVisible();
  const program = page.getByRole("region", { name: "Growth Mindset Mastery" });
  await expect(program).toContainText(/3 of \d+ lessons completed/);
  await expect(program.getByRole("listitem").filter({ hasText: "Completed" })).toHaveCount(3);
  await expect(program.getByRole("listitem").filter({ hasText: /Started \w{3} \d/ })).toHaveCount(1);
  // An admin sees the student's orders too.
  await expect(page.getByRole("region", { name: "Orders" })).toContainText("$300");
});

test("on a phone, an open lead's form and history stay on screen while the table scrolls, and one page offers no page buttons", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const lead = await sendLead(page);
  await signIn(page, demoAdmin);
  await expect(page).toHaveURL(/\/portal$/);
  await page.goto(`/desk?q=${encodeURIComponent(lead.email)}`);
  const row = page.getByRole("row").filter({ hasText: lead.email });
  await expect(row).toHaveCount(1);
  await expect(page.getByText("1 lead · page 1 of 1")).toBeVisible();
  await expect(page.getByRole("button", { name: /Previous page|Next page/ })).toHaveCount(0);

  await row.getByRole("button", { name: lead.name }).click();
  const note = page.getByLabel("Note");
  const save = page.getByRole("button", { name: "Save" });
  const onScreen = async () => {
    for (const control of [note, save]) {
      const box = (await control.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
  };
  await onScreen();
  // The table scrolls sideways to its last column; the lead's form stays where it was.
  const table = page.getByRole("group", { name: "Consultation requests" });
  await table.evaluate((box) => (box.scrollLeft = box.scrollWidth));
  expect(await table.evaluate((box) => box.scrollLeft)).toBeGreaterThan(0);
  await onScreen();
  await note.fill("Called from the road.");
  await save.click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
});

test("the demo admin sends a lead from /get-started-ai the AI offer: the applicant's e-mailed link opens it, the desk lists it as opened, and once withdrawn the link says so", async ({
  page,
}) => {
  const lead = await sendLead(page, "/get-started-ai");
  await signIn(page, demoAdmin);
  await expect(page).toHaveURL(/\/portal$/);
  await page.goto(`/desk?q=${encodeURIComponent(lead.email)}`);
  const row = page.getByRole("row").filter({ hasText: lead.email });
  await row.getByRole("button", { name: lead.name }).click();
  const form = page.getByRole("form", { name: `Send ${lead.name} an offer` });
  await expect(form.getByLabel("Offer")).toHaveValue("ai-advisor-accelerator");
  await expect(form.getByLabel("Price (USD)")).toHaveValue("35,000");
  await expect(form.getByLabel("Link works for (days)")).toHaveValue("7");
  const cohort = await form.getByLabel("Cohort").locator("option:checked").textContent();

  // Another price needs its reason: asked for at the field, and nothing is sent.
  await form.getByLabel("Price (USD)").fill("30,000");
  await form.getByRole("button", { name: "Send the offer" }).click();
  await expect(form.getByLabel("Why this price")).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByText("Say why the offer is at another price.")).toBeVisible();
  await form.getByLabel("Price (USD)").fill("35,000");
  await expect(form.getByLabel("Why this price")).toHaveCount(0);

  await form.getByRole("button", { name: "Send the offer" }).click();
  await expect(form.getByRole("status")).toContainText(`Offer sent to ${lead.email}. Its link works until`);
  const offers = page.getByRole("region", { name: "Offers" });
  await expect(offers.getByRole("listitem")).toHaveCount(1);
  await expect(offers.getByRole("listitem")).toContainText(
    `AI Advisor Accelerator, cohort of ${cohort!.replace("Starts ", "")}, $35,000.`,
  );

  // The applicant's e-mail carries the single-use link, which opens the offer as sent, on a phone.
  const mail = await lastMailTo(page, lead.email, /^Your offer to join AI Advisor Accelerator$/);
  const link = /http:\/\/[^\s]+\/offer\/[A-Za-z0-9_-]{43}/.exec(mail.text)![0];
  const applicant = await page.context().newPage();
  await applicant.setViewportSize({ width: 390, height: 844 });
  await applicant.goto(link);
  const first = lead.name.split(" ")[0];
  await expect(applicant.getByRole("heading", { level: 1 })).toHaveText(`${first}, welcome to AI Advisor Accelerator`);
  await expect(
    applicant.getByText(
      `$35,000 + $450/month, with your seat in the cohort that starts on ${cohort!.replace("Starts ", "")}.`,
    ),
  ).toBeVisible();
  const plan = applicant.getByRole("region", { name: "Six monthly payments" });
  await expect(plan.getByRole("row")).toHaveCount(7);
  await expect(plan.getByRole("row").nth(1)).toHaveText(/^1Today\$6,000$/);
  await expect(plan).toContainText("$36,000 in all, including a $1,000 plan fee.");
  await expect(plan.getByRole("button", { name: "Start the plan: $6,000 today" })).toBeVisible();
  await expect(applicant.getByRole("region", { name: "In one payment" }).getByRole("button")).toHaveText("Pay $35,000");
  await expect(applicant.getByText(/the monthly membership: \$450 a month from/)).toBeVisible();
  // Content's plans and terms are still sample: the page says so.
  await expect(applicant.getByRole("heading", { name: "Choose how to pay Sample content" })).toBeVisible();
  expect(await axeViolations(applicant)).toEqual([]);
  expect(await applicant.evaluate(() => document.documentElement.scrollWidth)).toBe(390);

  // The Offers view lists it as sent; withdrawn after a confirmation, it reads Withdrawn, kept on reload.
  await page.getByRole("navigation", { name: "Desk" }).getByRole("link", { name: "Offers" }).click();
  const listed = page.getByRole("row").filter({ hasText: lead.email });
  await expect(listed).toContainText("Opened");
  await listed.getByRole("button", { name: `Withdraw the offer to ${lead.name}` }).click();
  await listed.getByRole("button", { name: "Keep it" }).click();
  await expect(listed).toContainText("Opened");
  await listed.getByRole("button", { name: `Withdraw the offer to ${lead.name}` }).click();
  await listed.getByRole("button", { name: "Withdraw the offer" }).click();
  await expect(listed).toContainText("Withdrawn");
  await expect(listed.getByRole("button")).toHaveCount(0);
  await page.getByLabel("Status").selectOption("withdrawn");
  await page.reload();
  await expect(page.getByRole("row").filter({ hasText: lead.email })).toContainText("Withdrawn");

  // Listed as opened before it was withdrawn; the link now says it was withdrawn, and offers no way to pay.
  await applicant.reload();
  await expect(applicant.getByRole("heading", { name: "This offer was withdrawn" })).toBeVisible();
  await expect(applicant.getByRole("button", { name: /Pay|Start the plan/ })).toHaveCount(0);
});

test("a customer who types /desk is told it is for the team, and no link leads there", async ({ page }) => {
  await signIn(page, demoCustomer);
  await expect(page).toHaveURL(/\/portal$/);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByRole("link", { name: "Desk", exact: true })).toBeHidden();
  await page.goto("/desk");
  await expect(page.getByRole("heading", { name: "This page is for the team" })).toBeVisible();
  await expect(page.getByRole("table")).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Leads" })).toHaveCount(0);
});

test("a signed-out visitor is asked to sign in, and comes back to the desk", async ({ page }) => {
  await page.goto("/desk?view=students");
  await expect(page).toHaveURL(/\/login\?next=%2Fdesk%3Fview%3Dstudents$/);
});

test("a coach sees the students, and neither leads nor orders", async ({ page }) => {
  const coach = await createCustomer({ name: "coach" });
  expect((await serviceClient().from("staff").insert({ user_id: coach.id, role: "coach" })).error).toBeNull();
  await signIn(page, coach);
  await expect(page).toHaveURL(/\/portal$/);
  await page.getByRole("link", { name: "Desk", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Students" })).toBeVisible();
  const views = page.getByRole("navigation", { name: "Desk" }).getByRole("link");
  await expect(views).toHaveText(["Students"]);
  // Asking for the leads in the address shows the students still.
  await page.goto("/desk?view=leads");
  await expect(page.getByRole("heading", { name: "Students" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Leads" })).toHaveCount(0);
});

for (const viewport of [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
]) {
  test(`the desk's views are axe-clean and usable by keyboard at ${viewport.width} px`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await signIn(page, demoAdmin);
    await expect(page).toHaveURL(/\/portal$/);
    for (const view of ["leads", "offers", "students", "orders"]) {
      await page.goto(`/desk?view=${view}`);
      await expect(page.getByRole("link", { name: view[0]!.toUpperCase() + view.slice(1) })).toHaveAttribute(
        "aria-current",
        "page",
      );
      await expect(page.locator("[aria-busy=true]")).toHaveCount(0);
      expect(await axeViolations(page), view).toEqual([]);
      // The tables scroll inside their box; the page itself never gets wider than the screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth), view).toBe(viewport.width);
    }
    // The views are links in the tab order: Tab reaches Leads, Enter opens it.
    await page.goto("/desk?view=orders");
    const leads = page.getByRole("navigation", { name: "Desk" }).getByRole("link", { name: "Leads" });
    for (let i = 0; i < 15 && !(await leads.evaluate((el) => el === document.activeElement)); i++)
      await page.keyboard.press("Tab");
    await expect(leads).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("heading", { name: "Leads" })).toBeVisible();
  });
}
