/**
 * Lead capture on `npm start`, as the business will see it live: a visitor fills the
 * consultation form inside its frame (or picks a time on /apply) and the business's
 * notification, with where the visit came from, lands in the outbox. The form and widget are
 * the local stack's stand-ins for the scheduling provider (local/scheduling.ts).
 */
import { type APIRequestContext, expect, test } from "@playwright/test";

interface Mail {
  to: string;
  subject: string;
  text: string;
}

async function mailAbout(request: APIRequestContext, name: string): Promise<Mail> {
  let found: Mail | undefined;
  await expect
    .poll(async () => {
      const mails = (await (await request.get("/_local/outbox.json")).json()) as Mail[];
      found = mails.find((m) => m.text.includes(`Name: ${name}`));
      return !!found;
    })
    .toBe(true);
  return found!;
}

for (const path of ["/get-started-ai", "/get-started-os", "/get-started-mindset", "/get-started"]) {
  test(`${path}: the consultation form in its frame sends the business the lead and where it came from`, async ({
    page,
    request,
  }) => {
    const name = `Jordan Reyes ${path.slice(1)} ${Date.now()}`;
    await page.goto(`/transformation?utm_source=linkedin&utm_medium=paid&utm_campaign=q4-ria`, {
      referer: "https://www.linkedin.com/feed/",
    });
    await page.goto(path);
    const form = page.frameLocator('iframe[title="Consultation Form"]');
    await form.getByLabel("Full name").fill(name);
    await form.getByLabel("Email").fill("jordan@reyeswealth.example");
    await form.getByLabel("Phone").fill("(303) 555-0199");
    await form.getByLabel("Assets under management").selectOption("$50M to $100M");
    await form
      .getByLabel("What would you like help with?")
      .fill("Two advisors, want a repeatable client review process.");
    await form.getByRole("button", { name: "Request my strategy call" }).click();
    await expect(form.getByRole("status")).toContainText(`Thank you, ${name}.`);

    const mail = await mailAbout(request, name);
    expect(mail.to).toBe("success@advisoraccelerator.com");
    expect(mail.subject).toBe(`Consultation request: ${name}`);
    expect(mail.text).toContain("Email: jordan@reyeswealth.example");
    expect(mail.text).toContain("Assets under management: $50M to $100M");
    expect(mail.text).toContain("Source: linkedin");
    expect(mail.text).toContain("Campaign: q4-ria");
    expect(mail.text).toContain("Referrer: https://www.linkedin.com/feed/");
    expect(mail.text).toContain("Landing page: /transformation");
  });
}

test("the consultation form refuses a missing name or a bad e-mail address, and sends nothing", async ({
  page,
  request,
}) => {
  await page.goto("/get-started");
  const form = page.frameLocator('iframe[title="Consultation Form"]');
  await form.getByLabel("Email").fill("not-an-address");
  await form.getByRole("button", { name: "Request my strategy call" }).click();
  await expect(form.getByRole("alert")).toHaveText(["Please enter your name.", "Please enter a valid email address."]);
  await expect(form.getByLabel("Email")).toHaveValue("not-an-address");
  const mails = (await (await request.get("/_local/outbox.json")).json()) as Mail[];
  expect(mails.some((m) => m.text.includes("Email: not-an-address"))).toBe(false);
});

test("/apply: the booking widget books a strategy call and the business is told when, by whom and from where", async ({
  page,
  request,
}) => {
  const name = `Priya Natarajan ${Date.now()}`;
  await page.goto("/apply?utm_source=newsletter&utm_medium=email");
  const widget = page.frameLocator('iframe[title="Booking Calendar"]');
  const first = widget.getByRole("radio").first();
  const time = (await first.locator("xpath=..").innerText()).trim();
  await first.check();
  await widget.getByLabel("Full name").fill(name);
  await widget.getByLabel("Email").fill("priya@natarajanfp.example");
  await widget.getByRole("button", { name: "Book my call" }).click();
  await expect(widget.getByRole("status")).toContainText(`You're booked, ${name}.`);
  // The widget's script keeps its frame as tall as the confirmation.
  await expect(page.getByTitle("Booking Calendar")).toBeVisible();

  const mail = await mailAbout(request, name);
  expect(mail.subject).toBe(`Strategy call booked: ${name}, ${time}`);
  expect(mail.text).toContain(`Time: ${time}`);
  expect(mail.text).toContain("Source: newsletter");
  expect(mail.text).toContain("Medium: email");
  expect(mail.text).toContain("Landing page: /apply");
});
