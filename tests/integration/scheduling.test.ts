/**
 * The scheduling provider's stand-in (local/scheduling.ts) over HTTP: the form and widget pages
 * carry the visit's attribution from their URL, a submission is validated and sends the business
 * one notification with it, and a bad one sends nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack } from "../../local/harness.ts";
import { AUM_RANGES, BOOKING_PATH, CONSULTATION_PATH, EMBED_SCRIPT_PATH, slots } from "../../local/scheduling.ts";

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

  it("offers weekday times only, and serves its embed script", async () => {
    for (const slot of slots(new Date("2026-11-27T12:00:00Z"))) {
      expect([0, 6]).not.toContain(new Date(`${slot.value.slice(0, 10)}T12:00:00Z`).getUTCDay());
    }
    const script = await fetch(`${stack.url}${EMBED_SCRIPT_PATH}`);
    expect(script.headers.get("content-type")).toContain("text/javascript");
    expect(await script.text()).toContain("scheduling:height");
  });
});
