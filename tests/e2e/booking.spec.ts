/**
 * /apply on `npm start`: the booking widget is the local stack's stand-in for the scheduling
 * provider (packages/local-stack/src/scheduling.ts), which the site embeds as it will the
 * provider's. A visitor goes through the month view (a month of days, those with times
 * highlighted), picks a day's time and books with a name and e-mail; the business's notification,
 * with where the visit came from, lands in the outbox. The frame fits every step, at a phone's
 * width and a desktop's.
 */
import { type APIRequestContext, expect, type FrameLocator, test } from "@playwright/test";
import { BOOKING_WINDOW_DAYS, businessTimeZone } from "@advisor-accelerator/local-stack";
import { axeViolations } from "./axe";
import { expectFits, expectInView, frameOf, RESERVED_HEIGHT } from "./frames";

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

/** Today's date where the business is (content/site.yaml `timeZone`), as `YYYY-MM-DD`. */
function businessToday(): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: businessTimeZone(),
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    })
      .formatToParts(new Date())
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** The days of the month on show, each with whether it can be chosen. */
const monthDays = (widget: FrameLocator) =>
  widget.locator("table button").evaluateAll((buttons) =>
    buttons.map((b) => ({
      label: b.getAttribute("aria-label")!,
      value: (b as HTMLButtonElement).value,
      enabled: !(b as HTMLButtonElement).disabled,
    })),
  );

const TITLE = "Booking Calendar";

for (const viewport of [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
]) {
  test.describe(`/apply, ${viewport.width}px wide`, () => {
    test.use({ viewport });

    test("a visitor books a strategy call through the month view, and the business is told when, by whom and from where", async ({
      page,
      request,
    }) => {
      const name = `Priya Natarajan ${viewport.width} ${Date.now()}`;
      await page.goto("/apply?utm_source=newsletter&utm_medium=email");
      const widget = frameOf(page, TITLE);
      const month = widget.getByRole("heading", { level: 2 });
      await expect(month).toBeVisible();
      await expectFits(page, TITLE);
      // The month of the first day with times: no earlier month to go back to.
      await expect(widget.getByRole("button", { name: "Previous month" })).toBeDisabled();
      const shown = await month.textContent();
      await widget.getByRole("button", { name: "Next month" }).click();
      await expect(month).not.toHaveText(shown!);
      await expect(widget.getByRole("button", { name: "Previous month" })).toBeEnabled();
      await expectFits(page, TITLE);

      const day = widget.locator("table button:enabled").first();
      const dayLabel = (await day.getAttribute("aria-label"))!;
      await day.click();
      // The day's times, as chips under the day's name.
      await expect(widget.getByRole("heading", { name: dayLabel })).toBeVisible();
      const chips = widget.locator("button[name=time]");
      await expect(chips.first()).toBeVisible();
      await expectFits(page, TITLE);
      await expectInView(chips.last());
      const time = (await chips.first().textContent())!.trim();
      await chips.first().click();

      const book = widget.getByRole("button", { name: "Book my call" });
      await expect(book).toBeVisible();
      await expect(widget.getByText(dayLabel)).toBeVisible();
      await expectFits(page, TITLE);
      await expectInView(book);
      await widget.getByLabel("Full name").fill(name);
      await widget.getByLabel("Email").fill("priya@natarajanfp.example");
      await widget.getByLabel("Phone").fill("(415) 555-0142");
      await book.click();
      const confirmation = widget.getByRole("status");
      await expect(confirmation).toContainText(`You're booked, ${name}.`);
      await expect(confirmation).toContainText(dayLabel);
      await expect(confirmation).toContainText(time);
      await expectFits(page, TITLE);
      const slot = (await confirmation.locator("p").textContent())!.split(". A calendar invitation")[0]!;

      const mail = await mailAbout(request, name);
      expect(mail.to).toBe("success@advisoraccelerator.com");
      expect(mail.subject).toBe(`Strategy call booked: ${name}, ${slot}`);
      expect(mail.text).toContain(`Time: ${slot}`);
      expect(mail.text).toContain("Email: priya@natarajanfp.example");
      expect(mail.text).toContain("Phone: (415) 555-0142");
      expect(mail.text).toContain("Source: newsletter");
      expect(mail.text).toContain("Medium: email");
      expect(mail.text).toContain("Landing page: /apply");
    });

    test("the booking form refuses a missing name or a bad e-mail address, keeps the Book button in view, and sends nothing", async ({
      page,
      request,
    }) => {
      await page.goto("/apply");
      const widget = frameOf(page, TITLE);
      await widget.locator("table button:enabled").first().click();
      await widget.locator("button[name=time]").last().click();
      await widget.getByLabel("Email").fill("not-an-address");
      await widget.getByRole("button", { name: "Book my call" }).click();
      await expect(widget.getByRole("alert")).toHaveText([
        "Please enter your name.",
        "Please enter a valid email address.",
      ]);
      await expect(widget.getByLabel("Email")).toHaveValue("not-an-address");
      const fit = await expectFits(page, TITLE);
      expect(fit.frame).toBeGreaterThan(RESERVED_HEIGHT);
      await expectInView(widget.getByRole("button", { name: "Book my call" }));
      const mails = (await (await request.get("/_local/outbox.json")).json()) as Mail[];
      expect(mails.some((m) => m.text.includes("Email: not-an-address"))).toBe(false);
    });

    test("axe finds no violations in the widget at any step", async ({ page }) => {
      await page.goto("/apply");
      const widget = frameOf(page, TITLE);
      await expectFits(page, TITLE);
      expect(await axeViolations(page), "month").toEqual([]);
      await widget.locator("table button:enabled").first().click();
      await expect(widget.locator("button[name=time]").first()).toBeVisible();
      expect(await axeViolations(page), "the day's times").toEqual([]);
      await widget.locator("button[name=time]").first().click();
      await widget.getByRole("button", { name: "Book my call" }).click();
      await expect(widget.getByRole("alert").first()).toBeVisible();
      expect(await axeViolations(page), "the form with its errors").toEqual([]);
    });
  });
}

test("weekends, today and past days cannot be chosen; weekdays ahead can, in the business's time zone", async ({
  page,
}) => {
  // The stand-in's calendar: no same-day calls, none on a Saturday or Sunday, the next
  // BOOKING_WINDOW_DAYS days bookable (packages/local-stack/src/scheduling.ts `schedule`), dated
  // where the business is.
  const today = businessToday();
  const last = new Date(Date.parse(`${today}T00:00:00Z`) + BOOKING_WINDOW_DAYS * 86_400_000).toISOString().slice(0, 10);
  await page.goto("/apply");
  const widget = frameOf(page, TITLE);
  let seen = 0;
  for (let months = 0; months < 4; months++) {
    await expect(widget.locator("table button").first()).toBeVisible();
    const heading = await widget.getByRole("heading", { level: 2 }).textContent();
    for (const day of await monthDays(widget)) {
      const weekend = /^(Saturday|Sunday),/.test(day.label);
      if (!day.enabled) {
        expect(day.label, `${heading}: unavailable days say so`).toMatch(/, unavailable$/);
        continue;
      }
      seen++;
      expect(weekend, `${day.label} is a weekday`).toBe(false);
      expect(day.value > today, `${day.label} is after today, ${today}`).toBe(true);
      expect(day.value <= last, `${day.label} is within ${BOOKING_WINDOW_DAYS} days`).toBe(true);
    }
    const next = widget.getByRole("button", { name: "Next month" });
    if (await next.isDisabled()) break;
    await next.click();
    await expect(widget.getByRole("heading", { level: 2 })).not.toHaveText(heading!);
  }
  // Every weekday of the window, and the times are labelled with the business's zone.
  const weekdays = Array.from({ length: BOOKING_WINDOW_DAYS }, (_, n) =>
    new Date(Date.parse(`${today}T00:00:00Z`) + (n + 1) * 86_400_000).getUTCDay(),
  ).filter((d) => d !== 0 && d !== 6).length;
  expect(seen).toBe(weekdays);
  await widget.locator("table button:enabled").first().click();
  const zone = new Intl.DateTimeFormat("en-US", { timeZone: businessTimeZone(), timeZoneName: "longGeneric" })
    .formatToParts(new Date())
    .find((part) => part.type === "timeZoneName")!.value;
  await expect(widget.getByText(`Times in ${zone}`)).toBeVisible();
});

test("the widget is keyboard operable: Tab reaches the months and the open days, Enter chooses", async ({ page }) => {
  await page.goto("/apply");
  const widget = frameOf(page, TITLE);
  await expect(widget.getByRole("button", { name: "Next month" })).toBeVisible();
  const focused = () => widget.locator(":focus");
  // From the page's first link, Tab into the frame: the month's controls first.
  await page.getByRole("banner").getByRole("link").focus();
  for (let presses = 0; presses < 20; presses++) {
    await page.keyboard.press("Tab");
    if ((await page.evaluate(() => document.activeElement?.tagName)) === "IFRAME") break;
  }
  await expect(focused()).toHaveAttribute("aria-label", "Next month");
  // The next stop is the first open day: the unavailable ones before it are skipped.
  const firstOpen = (await monthDays(widget)).find((day) => day.enabled)!;
  await page.keyboard.press("Tab");
  await expect(focused()).toHaveAttribute("aria-label", firstOpen.label);
  await page.keyboard.press("Enter");
  await expect(widget.getByRole("heading", { name: firstOpen.label })).toBeVisible();
  await widget.locator("button[name=time]").first().focus();
  await page.keyboard.press("Enter");
  await widget.getByLabel("Full name").focus();
  await page.keyboard.type("Kofi Mensah");
  await page.keyboard.press("Tab");
  await page.keyboard.type("kofi@mensahwealth.example");
  await widget.getByRole("button", { name: "Book my call" }).focus();
  await page.keyboard.press("Enter");
  await expect(widget.getByRole("status")).toContainText("You're booked, Kofi Mensah.");
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the widget still books: plain links and forms, in a frame tall enough for the form", async ({
    page,
    request,
  }) => {
    const name = `Noor Haddad ${Date.now()}`;
    await page.goto("/apply");
    const widget = frameOf(page, TITLE);
    await widget.getByRole("button", { name: "Next month" }).click();
    await expect(widget.getByRole("button", { name: "Previous month" })).toBeEnabled();
    await widget.locator("table button:enabled").first().click();
    await widget.locator("button[name=time]").first().click();
    await widget.getByRole("button", { name: "Book my call" }).click();
    await expect(widget.getByRole("alert").first()).toBeVisible();
    await expectInView(widget.getByRole("button", { name: "Book my call" }));
    await widget.getByLabel("Full name").fill(name);
    await widget.getByLabel("Email").fill("noor@haddadplanning.example");
    await widget.getByRole("button", { name: "Book my call" }).click();
    await expect(widget.getByRole("status")).toContainText(`You're booked, ${name}.`);
    expect((await mailAbout(request, name)).subject).toContain(`Strategy call booked: ${name}, `);
  });
});
