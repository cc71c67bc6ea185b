/** The product's own e-mails (functions/_shared/emails.ts): what each says, and that nothing typed by anyone becomes markup. */
import { describe, expect, it } from "vitest";
import { COACHED_OFFERS } from "../../functions/_shared/catalogue.ts";
import {
  accessEmail,
  offerEmail,
  type OfferFacts,
  type OrderFacts,
  paymentFailedEmail,
  refundEmail,
} from "../../functions/_shared/emails.ts";
import { offerPayment } from "../../packages/shared/offer-options.ts";
import { orderReference } from "../../functions/_shared/order-reference.ts";

const facts: OrderFacts = {
  site: "https://advisoraccelerator.com",
  program: { id: "growth-mindset", key: "GROWTH_MINDSET", name: "Growth Mindset Mastery" },
  amountCents: 30_000,
  currency: "usd",
  reference: "3F9A27C1",
  email: "dana@example.com",
};

describe("order e-mails", () => {
  it("access for a returning customer: 'You now have <program>', a button to its course, the order's facts", () => {
    const mail = accessEmail(facts, null);
    expect(mail.to).toBe("dana@example.com");
    expect(mail.subject).toBe("You now have Growth Mindset Mastery");
    expect(mail.html).toContain('href="https://advisoraccelerator.com/portal/courses/growth-mindset"');
    expect(mail.html).toContain(">Open Growth Mindset Mastery<");
    expect(mail.text).toContain("Amount paid: $300\n");
    expect(mail.text).toContain("Order: 3F9A27C1");
    expect(mail.html).not.toContain("reset-password");
  });

  it("access for a new buyer carries the set-password link: one e-mail to act on", () => {
    const link = "https://advisoraccelerator.com/reset-password?token_hash=abc&type=invite";
    const mail = accessEmail(facts, link);
    expect(mail.subject).toBe("You now have Growth Mindset Mastery: set your password to start");
    expect(mail.html).toContain('href="https://advisoraccelerator.com/reset-password?token_hash=abc&amp;type=invite"');
    expect(mail.text).toContain(`Set your password: ${link}`);
    expect(mail.text).toContain("https://advisoraccelerator.com/forgot-password");
  });

  it("access to a cohort program: the cohort's first day in the text and the facts, and an .ics of it (RFC 5545)", () => {
    const ai = {
      ...facts,
      program: { id: "ai-advisor-accelerator", key: "AI_ACCELERATOR", name: "AI Advisor Accelerator" },
      amountCents: 1_500_000,
      cohort: { start: "2027-01-11", started: false, orderedAt: new Date("2026-11-28T15:04:05Z") },
    };
    const mail = accessEmail(ai, null);
    expect(mail.text).toContain("start with the orientation");
    expect(mail.text).toContain("Your cohort starts on Monday, January 11, 2027. The orientation is open");
    expect(mail.text).toContain("Cohort starts: Monday, January 11, 2027\n");
    expect(mail.attachments).toHaveLength(1);
    const [file] = mail.attachments!;
    expect(file!.filename).toBe("cohort-start.ics");
    expect(file!.contentType).toBe("text/calendar; charset=utf-8; method=PUBLISH");
    const lines = file!.text.split("\r\n");
    expect(lines.slice(0, 6)).toEqual([
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "PRODID:-//Advisor Accelerator//Cohorts//EN",
      "CALSCALE:GREGORIAN",
      "METHOD:PUBLISH",
      "BEGIN:VEVENT",
    ]);
    expect(lines).toContain("UID:3F9A27C1-cohort@advisoraccelerator.com");
    expect(lines).toContain("DTSTAMP:20261128T150405Z");
    // An all-day event: DTEND is the next day, exclusive.
    expect(lines).toContain("DTSTART;VALUE=DATE:20270111");
    expect(lines).toContain("DTEND;VALUE=DATE:20270112");
    expect(lines).toContain("SUMMARY:AI Advisor Accelerator: your cohort starts");
    expect(file!.text.endsWith("END:VEVENT\r\nEND:VCALENDAR\r\n")).toBe(true);
    // Content lines are folded at 75 octets, the continuation starting with a space.
    for (const line of lines) expect(new TextEncoder().encode(line).length).toBeLessThanOrEqual(75);
    const unfolded = file!.text.replace(/\r\n /g, "");
    expect(unfolded).toContain(
      "DESCRIPTION:Week 1 of your AI Advisor Accelerator cohort opens today in your client portal: https://advisoraccelerator.com/portal/courses/ai-advisor-accelerator",
    );
    // The same order gives the same file: a resent e-mail is the same e-mail.
    expect(accessEmail(ai, null).attachments).toEqual(mail.attachments);
  });

  it("access to a cohort that has started: its weeks so far are open, and no calendar file for a day gone by", () => {
    const mail = accessEmail(
      {
        ...facts,
        program: { id: "ai-advisor-accelerator", key: "AI_ACCELERATOR", name: "AI Advisor Accelerator" },
        cohort: { start: "2027-01-11", started: true, orderedAt: new Date("2027-01-18T15:00:00Z") },
      },
      null,
    );
    expect(mail.text).toContain("Your cohort started on Monday, January 11, 2027, and you join it now");
    expect(mail.attachments).toBeUndefined();
    // A self-paced program's e-mail names no cohort.
    expect(accessEmail(facts, null).text).not.toMatch(/cohort/i);
  });

  it("a failed bank debit: nothing charged, no access, the checkout to try again", () => {
    const mail = paymentFailedEmail(facts);
    expect(mail.subject).toBe("Your payment for Growth Mindset Mastery did not go through");
    expect(mail.text).toMatch(/nothing was charged and the program has not been opened/);
    expect(mail.html).toContain('href="https://advisoraccelerator.com/checkout/GROWTH_MINDSET"');
  });

  it("a refund: the amount, when it arrives, and that access has ended", () => {
    const mail = refundEmail(facts);
    expect(mail.subject).toBe("Your refund for Growth Mindset Mastery");
    expect(mail.text).toContain("Amount refunded: $300\n");
    expect(mail.text).toMatch(/access to Growth Mindset Mastery has ended/);
  });

  it("escapes every value it is given", () => {
    const mail = accessEmail({ ...facts, email: `"><script>x</script>@example.com` }, null);
    expect(mail.html).not.toContain("<script>");
    expect(mail.html).toContain("&lt;script&gt;");
  });

  it("states an amount as the site's pages do: whole dollars bare, cents only when there are some", () => {
    expect(accessEmail({ ...facts, amountCents: 1_500_000 }, null).text).toContain("Amount paid: $15,000\n");
    expect(refundEmail({ ...facts, amountCents: 1999 }).text).toContain("Amount refunded: $19.99\n");
  });
});

describe("the order reference", () => {
  it("is 8 upper-case hex digits, the same for the same session, different for another", async () => {
    const a = await orderReference("cs_test_a1B2c3");
    expect(a).toMatch(/^[0-9A-F]{8}$/);
    expect(await orderReference("cs_test_a1B2c3")).toBe(a);
    expect(await orderReference("cs_test_a1B2c4")).not.toBe(a);
  });
});

describe("the offer e-mail (docs/coached-offers.md)", () => {
  const ai = COACHED_OFFERS.find((o) => o.id === "ai-advisor-accelerator")!;
  const offer: OfferFacts = {
    name: "Avery Applicant",
    program: { name: ai.name, includes: ai.includes },
    priceCents: ai.priceCents,
    payment: offerPayment(ai, ai.priceCents, "2027-01-11")!,
    cohortStart: "2027-01-11",
    url: "https://advisoraccelerator.com/offer/Zm9vYmFyYmF6",
    expiresAt: new Date("2027-01-08T23:00:00Z"),
    timeZone: "America/Chicago",
  };

  it("names the applicant, the program and the cohort, lists what it includes, each way to pay with its amounts, and the membership beside them", () => {
    const mail = offerEmail("avery@example.com", offer, "hello@advisoraccelerator.com");
    expect(mail.to).toBe("avery@example.com");
    expect(mail.replyTo).toBe("hello@advisoraccelerator.com");
    expect(mail.subject).toBe("Your offer to join AI Advisor Accelerator");
    expect(mail.text).toContain(
      "Thank you for the call, Avery. As we discussed, here is your offer to join AI Advisor Accelerator, with a seat in the cohort that starts on Monday, January 11, 2027.",
    );
    for (const item of ai.includes) expect(mail.text).toContain(item);
    expect(mail.text).toContain("$35,000 in one payment.");
    expect(mail.text).toContain(
      "Six monthly payments: 6 payments of $6,000, the first when you accept and then one a month on the same day ($36,000 in all, including a $1,000 plan fee).",
    );
    expect(mail.text).toMatch(/the monthly membership: \$450 a month from \w+day, April 11, 2027/);
  });

  it("carries the link once, with when it stops working in the business's time zone, and the terms", () => {
    const mail = offerEmail("avery@example.com", offer, "hello@advisoraccelerator.com");
    expect(mail.text).toContain(`See your offer and choose how to pay: ${offer.url}`);
    expect(mail.html.match(/offer\/Zm9vYmFyYmF6/g)).toHaveLength(1);
    expect(mail.text).toContain("works until Friday, January 8 at 5:00 PM CST");
    expect(mail.text).toContain(ai.payment!.terms);
  });

  it("says so while content's plans and terms are sample, and not once they are the business's own", () => {
    const sample = "Sample: these payment plans, the membership's start and the terms are sample content";
    expect(offerEmail("avery@example.com", offer, "hello@advisoraccelerator.com").text).toContain(sample);
    const own = { ...offer, payment: { ...offer.payment, sample: undefined } };
    expect(offerEmail("avery@example.com", own, "hello@advisoraccelerator.com").text).not.toContain("Sample:");
  });

  it("at another price, states the plan's new instalments; a self-paced offer names no cohort and no membership", () => {
    const mindset = COACHED_OFFERS.find((o) => o.id === "growth-mindset")!;
    const mail = offerEmail(
      "sam@example.com",
      {
        ...offer,
        name: "Sam",
        program: { name: mindset.name, includes: mindset.includes },
        priceCents: 350000,
        payment: offerPayment(mindset, 350000, null)!,
        cohortStart: null,
      },
      "hello@advisoraccelerator.com",
    );
    expect(mail.text).toContain("here is your offer to join Growth Mindset Mastery.");
    expect(mail.text).toContain("$3,500 in one payment.");
    expect(mail.text).toContain("Three monthly payments: 3 payments of $1,200,");
    expect(mail.text).toContain("($3,600 in all, including a $100 plan fee)");
    expect(mail.text).not.toContain("membership:");
  });

  it("lists unequal instalments one by one", () => {
    const mindset = COACHED_OFFERS.find((o) => o.id === "growth-mindset")!;
    const payment = offerPayment(mindset, 350050, null)!;
    const mail = offerEmail(
      "sam@example.com",
      { ...offer, payment, cohortStart: null },
      "hello@advisoraccelerator.com",
    );
    expect(mail.text).toContain("Three monthly payments: 3 payments: $1,200.18, $1,200.16, $1,200.16,");
  });

  it("escapes the name the team typed", () => {
    const mail = offerEmail("x@example.com", { ...offer, name: "<b>Eve</b>" }, "hello@advisoraccelerator.com");
    expect(mail.html).not.toContain("<b>Eve");
  });
});
