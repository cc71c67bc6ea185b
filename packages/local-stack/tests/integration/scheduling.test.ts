/**
 * The scheduling provider's stand-in (packages/local-stack/src/scheduling.ts) over HTTP: the form
 * and widget pages carry the visit's attribution from their URL, the widget offers weekdays after
 * today in the business's time zone, a submission is validated and sends the business one
 * notification with it, and a bad one sends nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack } from "../../src/harness.ts";
import { createMailer } from "../../src/mail.ts";
import {
  AUM_RANGES,
  BOOKING_PATH,
  CONSULTATION_PATH,
  EMBED_SCRIPT_PATH,
  handleScheduling,
  schedule,
  slots,
} from "../../src/scheduling.ts";

describe("the scheduling stand-in", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ name: "PGlite" }, { seed: false, leadsTo: "team@advisor.example" });
  }, 60_000);
  afterAll(() => stack?.stop());

  const post = (path: string, fields: Record<string, string>) =>
    fetch(`${stack.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  const leadsFor = (name: string) => stack.mail.list().filter((m) => m.text.includes(`Name: ${name}`));

  it("serves the consultation form with the frame URL's attribution as hidden fields", async () => {
    const page = await (
      await fetch(`${stack.url}${CONSULTATION_PATH}?utm_source=linkedin&landing_page=%2Fmindset&other=x`)
    ).text();
    expect(page).toContain('<input type="hidden" name="utm_source" value="linkedin">');
    expect(page).toContain('<input type="hidden" name="landing_page" value="/mindset">');
    expect(page).not.toContain('name="other"');
    for (const range of AUM_RANGES) expect(page).toContain(`<option>${range}</option>`);
  });

  it("sends the business one notification per consultation request, with the attribution", async () => {
    const response = await post(CONSULTATION_PATH, {
      name: "Avery Chen",
      email: "avery@chenwealth.example",
      phone: "555-0100",
      aum: "Over $250M",
      message: "<b>Hello</b>",
      utm_source: "google",
      utm_campaign: "brand",
      landing_page: "/",
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Thank you, Avery Chen.");
    const [mail, ...more] = leadsFor("Avery Chen");
    expect(more).toEqual([]);
    expect(mail).toMatchObject({ to: "team@advisor.example", subject: "Consultation request: Avery Chen" });
    expect(mail!.text).toContain("Assets under management: Over $250M");
    expect(mail!.text).toContain("Source: google");
    expect(mail!.text).toContain("Campaign: brand");
    expect(mail!.text).toContain("Medium: —");
    expect(mail!.html).toContain("&lt;b&gt;Hello&lt;/b&gt;");
  });

  it("refuses a missing name or a bad address with the form again and sends nothing", async () => {
    const response = await post(CONSULTATION_PATH, { name: "", email: "nobody", utm_source: "x" });
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain("Please enter your name.");
    expect(page).toContain("Please enter a valid email address.");
    expect(page).toContain('<input type="hidden" name="utm_source" value="x">');
    expect(stack.mail.list().filter((m) => m.text.includes("Email: nobody"))).toEqual([]);
  });

  it("books one of the offered times, and refuses a time it did not offer", async () => {
    const slot = slots()[0]!;
    const booked = await post(BOOKING_PATH, { slot: slot.value, name: "Sam Ortiz", email: "sam@ortiz.example" });
    expect(booked.status).toBe(200);
    expect(leadsFor("Sam Ortiz")[0]!.subject).toBe(`Strategy call booked: Sam Ortiz, ${slot.label}`);
    const refused = await post(BOOKING_PATH, { slot: "2000-01-01 03:00", name: "Lee Park", email: "lee@park.example" });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("Please choose a time.");
    expect(leadsFor("Lee Park")).toEqual([]);
  });

  it("offers weekdays from tomorrow where the business is, never today or a weekend", () => {
    // 05:30 UTC on Friday 27 November 2026 is still Thursday the 26th in Chicago (UTC-6).
    const offer = schedule(new Date("2026-11-27T05:30:00Z"), "America/Chicago", "Advisor Accelerator");
    expect(offer.today).toBe("2026-11-26");
    expect(offer.zone).toBe("Central Time");
    const days = [...offer.days.keys()];
    expect(days.slice(0, 3)).toEqual(["2026-11-27", "2026-11-30", "2026-12-01"]);
    for (const day of days) expect([0, 6]).not.toContain(new Date(`${day}T12:00:00Z`).getUTCDay());
    // In Tokyo it is already the 27th there: tomorrow is Saturday, so Monday comes first.
    expect([...schedule(new Date("2026-11-27T05:30:00Z"), "Asia/Tokyo", "x").days.keys()][0]).toBe("2026-11-30");
    const [first] = slots(new Date("2026-11-27T05:30:00Z"), "America/Chicago");
    expect(first).toEqual({ value: "2026-11-27 09:00", label: "Friday, November 27, 2026, 9:00 AM Central Time" });
  });

  it("walks the month view by plain links and forms: a month, a day's times, the form", async () => {
    const mail = createMailer();
    const now = () => new Date("2026-11-27T05:30:00Z");
    const get = async (query: string) => {
      const response = await handleScheduling(new Request(`http://stand-in${BOOKING_PATH}${query}`), mail, "x@y.z", {
        now,
        timeZone: "America/Chicago",
      });
      return response!.text();
    };
    const month = await get("?utm_source=newsletter");
    expect(month).toContain('<h2 id="month">November 2026</h2>');
    expect(month).toContain('aria-label="Previous month" disabled');
    expect(month).toContain(
      '<button class="day" name="day" value="2026-11-27" aria-label="Friday, November 27">27</button>',
    );
    expect(month).toContain('aria-label="Saturday, November 28, unavailable" disabled');
    expect(month).toContain('aria-label="Thursday, November 26, unavailable" disabled');
    expect(month).toContain('<input type="hidden" name="utm_source" value="newsletter">');
    expect(month).not.toContain('name="time"');
    // A month past the window, or not a month, shows the first one.
    expect(await get("?month=2027-06")).toContain("November 2026");
    expect(await get("?month=December")).toContain("November 2026");
    expect(await get("?month=2027-01")).toContain("January 2027");

    const day = await get("?day=2026-12-03&utm_source=newsletter");
    expect(day).toContain("December 2026");
    expect(day).toContain('value="2026-12-03" aria-label="Thursday, December 3" aria-current="true"');
    expect(
      [...day.matchAll(/<button class="chip" name="time" value="([\d:]+)">([^<]+)<\/button>/g)].map((m) => m[2]),
    ).toEqual(["9:00 AM", "10:30 AM", "1:00 PM", "2:30 PM", "4:00 PM"]);
    expect(day).toContain('<input type="hidden" name="day" value="2026-12-03">');
    // A day it does not offer (a Saturday, today) shows no times.
    expect(await get("?day=2026-12-05")).not.toContain('name="time"');
    expect(await get("?day=2026-11-26")).not.toContain('name="time"');

    const form = await get("?day=2026-12-03&time=13:00&utm_source=newsletter");
    expect(form).toContain("Thursday, December 3, 2026");
    expect(form).toContain("1:00 PM to 1:30 PM, Central Time");
    expect(form).toContain('<input type="hidden" name="slot" value="2026-12-03 13:00">');
    expect(form).toContain('<button type="submit">Book my call</button>');
    // A time it does not offer that day: the day's times again.
    expect(await get("?day=2026-12-03&time=03:00")).toContain('name="time"');
  });

  it("serves its embed script", async () => {
    const script = await fetch(`${stack.url}${EMBED_SCRIPT_PATH}`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("text/javascript");
  });
});
