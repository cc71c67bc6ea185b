/**
 * Lead capture on `npm start`, which is production with the content as it ships: the
 * consultation pages have the site's own form (src/features/leads/ConsultationForm.astro, posting
 * to the `leads` function), whose request reaches the business by e-mail with where the visit
 * came from, and whose sender gets a short confirmation. (/apply keeps the booking widget, the stack's stand-in for the scheduling provider:
 * its own tests are beside it, in tests/e2e/embeds.spec.ts.)
 */
import AxeBuilder from "@axe-core/playwright";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { leadRequest } from "../../packages/shared/lead.ts";

interface Mail {
  to: string;
  replyTo?: string;
  subject: string;
  text: string;
}

const BUSINESS = "success@advisoraccelerator.com";
/** The team's number as shown: non-breaking space and hyphen. */
const PHONE = "(512)\u00a0555\u20110148";

const outbox = async (request: APIRequestContext) =>
  (await (await request.get("/_local/outbox.json")).json()) as Mail[];

async function notificationFor(request: APIRequestContext, email: string): Promise<Mail> {
  let found: Mail | undefined;
  await expect
    .poll(async () => {
      found = (await outbox(request)).find((m) => m.replyTo === email);
      return !!found;
    })
    .toBe(true);
  return found!;
}

/** What the outbox holds for the visitor's own address: their confirmations. */
const sentTo = async (request: APIRequestContext, email: string) =>
  (await outbox(request)).filter((m) => m.to === email);

const address = (who: string) =>
  `${who}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@reyeswealth.example`;

/** Fills in every answer of the form. */
async function fill(page: Page, email: string) {
  await page.getByLabel("Full name").fill("Jordan Reyes");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Phone").fill("(303) 555-0199");
  await page.getByLabel("Firm name").fill("Reyes Wealth Partners");
  await page.getByLabel("Assets under management").selectOption("$50M to $100M");
  await page
    .getByLabel("What would you like help with?")
    .fill("Two advisors, no repeatable review process.\nWe want to pass $100M without a third hire.");
}

const send = (page: Page) => page.getByRole("button", { name: "Request my strategy call" }).click();

for (const viewport of [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 900 },
]) {
  test(`${viewport.name}: a request from the form reaches the business, with the campaign of the visit's first page`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize(viewport);
    const email = address("jordan");
    await page.goto("/transformation?utm_source=linkedin&utm_medium=paid&utm_campaign=q4-ria", {
      referer: "https://www.linkedin.com/feed/",
    });
    await page.goto("/get-started-ai");
    await expect(page.getByRole("heading", { name: "Tell us about your practice" })).toBeVisible();
    await expect(page.locator("iframe")).toHaveCount(0);
    await fill(page, email);
    await send(page);

    const thanks = page.getByRole("heading", { name: "Thank you, Jordan. Your request is in." });
    await expect(thanks).toBeFocused();
    await expect(page.getByRole("status")).toContainText(`a coach e-mails you at ${email}`);
    await expect(page.getByRole("status")).toContainText("to book your free 30-minute strategy call");
    expect(
      (await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]).analyze())
        .violations,
    ).toEqual([]);

    const mail = await notificationFor(request, email);
    expect(mail.to).toBe(BUSINESS);
    expect(mail.subject).toBe("Consultation request: Jordan Reyes");
    for (const line of [
      `Email: ${email}`,
      "Phone: (303) 555-0199",
      "Firm: Reyes Wealth Partners",
      "Assets under management: $50M to $100M",
      "Page: /get-started-ai",
      "We want to pass $100M without a third hire.",
      "Source: linkedin",
      "Medium: paid",
      "Campaign: q4-ria",
      "Referrer: https://www.linkedin.com/feed/",
      "Landing page: /transformation",
    ]) {
      expect(mail.text).toContain(line);
    }

    // The visitor's confirmation, sent in the same request: the business's words, their first name only.
    const [confirmation, ...more] = await sentTo(request, email);
    expect(more).toEqual([]);
    expect(confirmation).toMatchObject({ replyTo: BUSINESS, subject: "Your strategy call request is in" });
    expect(confirmation!.text).toContain(
      "Thank you, Jordan. We have your request for a free 30-minute strategy call with Advisor Accelerator.",
    );
    expect(confirmation!.text).toContain("A coach reads every request and replies within one business day");
    for (const typed of ["Reyes", "(303) 555-0199", "$50M", "third hire", "linkedin"])
      expect(confirmation!.text, typed).not.toContain(typed);
  });
}

test("missing or malformed answers are said beside their fields, the first one focused, and nothing is sent", async ({
  page,
}) => {
  let posts = 0;
  page.on("request", (r) => {
    if (r.url().includes("/functions/v1/leads")) posts++;
  });
  await page.goto("/get-started");
  await page.getByLabel("Email").fill("jordan@");
  await page.getByLabel("Phone").fill("call me");
  await send(page);
  const name = page.getByLabel("Full name");
  await expect(name).toBeFocused();
  await expect(name).toHaveAttribute("aria-invalid", "true");
  await expect(name).toHaveAccessibleDescription("Please enter your name.");
  await expect(page.getByLabel("Email")).toHaveAccessibleDescription("Please enter a valid email address.");
  await expect(page.getByLabel("Phone")).toHaveAccessibleDescription(
    "Please enter a phone number with its area code, or leave it empty.",
  );
  expect(
    (await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]).analyze())
      .violations,
  ).toEqual([]);
  // A corrected answer loses its message; the others keep theirs.
  await name.fill("Jordan Reyes");
  await expect(name).not.toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Email")).toHaveValue("jordan@");
  expect(posts).toBe(0);
});

test("a bot that fills the hidden field is told it worked, and the business receives nothing", async ({
  page,
  request,
}) => {
  await page.goto("/get-started-mindset");
  await expect(page.getByRole("button", { name: "Request my strategy call" })).toBeEnabled();
  const trap = page.locator('input[name="website"]');
  // Out of people's reach: hidden from assistive technology and skipped by the Tab key.
  await expect(trap).toHaveAttribute("tabindex", "-1");
  await expect(page.locator('[aria-hidden="true"]:has(input[name="website"])')).toHaveCount(1);
  await page.getByLabel("What would you like help with?").focus();
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Request my strategy call" })).toBeFocused();

  const email = address("bot");
  await page.getByLabel("Full name").fill("Cheap SEO");
  await page.getByLabel("Email").fill(email);
  await trap.fill("https://cheap-seo.example", { force: true });
  await send(page);
  await expect(page.getByRole("heading", { name: "Thank you, Cheap. Your request is in." })).toBeVisible();
  // The answer came after the function decided: had it sent anything, it would be in the outbox now.
  expect((await outbox(request)).filter((m) => m.replyTo === email || m.to === email)).toEqual([]);
});

test("after several requests in a short time the form says when to try again, and keeps the answers", async ({
  page,
  request,
}) => {
  const email = address("eager");
  // The same address asked three times in the last hour already: the function's limit per e-mail
  // address (LIMITS in functions/leads/handler.ts).
  for (let i = 0; i < 3; i++) {
    const earlier = await request.post("/functions/v1/leads", {
      data: leadRequest({ name: "Jordan Reyes", email }, "/get-started", 6_000),
    });
    expect(earlier.status()).toBe(200);
  }
  await page.goto("/get-started");
  await fill(page, email);
  await send(page);
  await expect(page.getByRole("alert")).toHaveText(
    `We have received several requests from you in a short time, so new ones are paused. Please try again in about an hour. Or email ${BUSINESS} or call ${PHONE}: your answers are still in the form.`,
  );
  await expect(page.getByLabel("Email")).toHaveValue(email);
  await expect(page.getByLabel("What would you like help with?")).toHaveValue(/third hire/);
  await expect(page.getByRole("link", { name: BUSINESS })).toHaveAttribute("href", `mailto:${BUSINESS}`);
  await expect(page.getByRole("link", { name: PHONE })).toHaveAttribute("href", "tel:5125550148");
});

test("when the request cannot go (no network, the server failing) the form says so and keeps every answer; sent again, it goes", async ({
  page,
  request,
}) => {
  const email = address("offline");
  await page.goto("/get-started-os");
  await fill(page, email);
  await page.route("**/functions/v1/leads", (route) => route.abort("internetdisconnected"));
  await send(page);
  await expect(page.getByRole("alert")).toContainText(
    "Your request was not sent: we could not reach our server. Check your connection and try again.",
  );
  await page.unroute("**/functions/v1/leads");
  await page.route("**/functions/v1/leads", (route) =>
    route.fulfill({ status: 503, contentType: "application/json", body: '{"code":"BOOT_ERROR"}' }),
  );
  await send(page);
  await expect(page.getByRole("alert")).toContainText(
    "Your request was not sent: something went wrong on our side. Please try again in a minute.",
  );
  await expect(page.getByLabel("Full name")).toHaveValue("Jordan Reyes");
  await expect(page.getByLabel("Email")).toHaveValue(email);
  await expect(page.getByLabel("Phone")).toHaveValue("(303) 555-0199");
  await expect(page.getByLabel("Firm name")).toHaveValue("Reyes Wealth Partners");
  await expect(page.getByLabel("Assets under management")).toHaveValue("$50M to $100M");
  await expect(page.getByLabel("What would you like help with?")).toHaveValue(/third hire/);

  await page.unroute("**/functions/v1/leads");
  await send(page);
  await expect(page.getByRole("heading", { name: "Thank you, Jordan. Your request is in." })).toBeFocused();
  expect((await notificationFor(request, email)).text).toContain("Page: /get-started-os");
});
