/**
 * The consultation request's rules (packages/shared/lead.ts), which the form and the `leads`
 * function both apply, the business's notification and the visitor's confirmation
 * (functions/_shared/emails.ts).
 */
import { readFileSync } from "node:fs";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { BRAND, LEAD_REPLY_WITHIN } from "../../functions/_shared/catalogue.ts";
import { leadConfirmationEmail, leadNotificationEmail, SUBJECT_NAME_MAX } from "../../functions/_shared/emails.ts";
import { AUM_RANGES, checkLead, FIELD_MAX, leadErrors, leadRequest, PAGE_PATH } from "../../packages/shared/lead.ts";

const valid = {
  name: "Jordan Reyes",
  email: "Jordan@ReyesWealth.example",
  phone: "(303) 555-0199",
  firm: "Reyes Wealth Partners",
  aum: "$50M to $100M",
  help: "A repeatable client review process.\nTwo advisors, one assistant.",
};

describe("a consultation request's answers", () => {
  it("needs a name and a valid e-mail address; phone, firm, assets and help are optional", () => {
    expect(leadErrors({})).toEqual({
      name: "Please enter your name.",
      email: "Please enter a valid email address.",
    });
    expect(leadErrors({ name: "   ", email: "jordan@" })).toEqual({
      name: "Please enter your name.",
      email: "Please enter a valid email address.",
    });
    expect(leadErrors({ name: "Jordan", email: "jordan@reyeswealth.example" })).toEqual({});
    expect(leadErrors(valid)).toEqual({});
  });

  it("takes phone numbers as people write them, and refuses what is not one", () => {
    for (const phone of ["(303) 555-0199", "+44 20 7946 0958", "303.555.0199", "303-555-0199 ext. 12", "3035550199"])
      expect(leadErrors({ ...valid, phone }), phone).toEqual({});
    for (const phone of ["call me", "555", "303-555-0199; drop table", "+1 (303) 555-0199".repeat(3)])
      expect(leadErrors({ ...valid, phone }).phone, phone).toBe(
        "Please enter a phone number with its area code, or leave it empty.",
      );
  });

  it("offers the assets bands the business sorts leads by, and nothing else", () => {
    expect(AUM_RANGES).toEqual(["Under $10M", "$10M to $50M", "$50M to $100M", "$100M to $250M", "Over $250M"]);
    for (const aum of AUM_RANGES) expect(leadErrors({ ...valid, aum })).toEqual({});
    expect(leadErrors({ ...valid, aum: "" })).toEqual({});
    expect(leadErrors({ ...valid, aum: "$1B" }).aum).toBe("Please choose one of the listed ranges.");
  });

  it("caps each answer's length, saying by how much for the long one", () => {
    expect(leadErrors({ ...valid, name: "J".repeat(FIELD_MAX.name + 1) }).name).toBe(
      "Please shorten your name to 120 characters.",
    );
    expect(leadErrors({ ...valid, firm: "F".repeat(FIELD_MAX.firm + 1) }).firm).toBe(
      "Please shorten the firm name to 160 characters.",
    );
    expect(leadErrors({ ...valid, help: "h".repeat(2001) }).help).toBe(
      "Please shorten this to 2000 characters (it is 2001).",
    );
    expect(leadErrors({ ...valid, email: `${"a".repeat(250)}@example.com` }).email).toBe(
      "Please enter a valid email address.",
    );
    expect(leadErrors({ ...valid, help: "h".repeat(2000) })).toEqual({});
  });

  it("keeps line breaks in what they want help with only, and control characters nowhere", () => {
    const message = "Please remove the special characters from this answer.";
    expect(leadErrors({ ...valid, name: "Jordan\r\nReyes" }).name).toBe(message);
    expect(leadErrors({ ...valid, firm: "Reyes\u0007 Wealth" }).firm).toBe(message);
    expect(leadErrors({ ...valid, help: "Hello\u0000" }).help).toBe(message);
    expect(leadErrors({ ...valid, help: "Line one\r\nLine two\tand a tab" })).toEqual({});
  });

  it("reads anything the browser sends without trusting its shape", () => {
    expect(leadErrors({ name: 42, email: ["a@b.co"], phone: { x: 1 } } as never)).toEqual({
      name: "Please enter your name.",
      email: "Please enter a valid email address.",
    });
  });

  it("checkLead answers the trimmed answers, the address in lower case, or the errors", () => {
    expect(checkLead({ ...valid, name: "  Jordan Reyes ", firm: "" })).toEqual({
      ok: true,
      lead: { ...valid, email: "jordan@reyeswealth.example", firm: "" },
    });
    expect(checkLead({ ...valid, email: "no" })).toEqual({
      ok: false,
      errors: { email: "Please enter a valid email address." },
    });
  });

  it("knows a lead page's path from anything else", () => {
    for (const page of ["/get-started", "/get-started-ai", "/apply"]) expect(PAGE_PATH.test(page), page).toBe(true);
    for (const page of ["get-started", "/Get-Started", "/get-started/", "https://x.example/apply", "/a--b", "/"])
      expect(PAGE_PATH.test(page), page).toBe(false);
  });
});

describe("the form's request", () => {
  it("carries the answers, the page, the time the form was open, and the first touch's known fields only", () => {
    const body = leadRequest({ ...valid, website: "" }, "/get-started-os", 4321.6, {
      utm_source: "linkedin",
      utm_campaign: "q4-ria",
      landing_page: "/transformation",
      referrer: "",
      gclid: "not ours",
      utm_term: 7,
    });
    expect(body).toEqual({
      ...valid,
      website: "",
      page: "/get-started-os",
      elapsed_ms: 4322,
      attribution: { utm_source: "linkedin", utm_campaign: "q4-ria", landing_page: "/transformation" },
    });
    expect(leadRequest({ name: "A" }, "/apply", -5, null)).toEqual({ name: "A", page: "/apply", elapsed_ms: 0 });
    expect(leadRequest({}, "/apply", 5000, { utm_source: "x".repeat(300) }).attribution?.utm_source).toHaveLength(200);
  });
});

describe("the business's notification", () => {
  const lead = {
    name: 'Jordan "JR" <Reyes>',
    email: "jordan@reyeswealth.example",
    phone: null,
    firm: "Reyes & Co",
    aum: "$50M to $100M",
    help: "Line one\n<script>alert(1)</script>",
    page: "/get-started-ai",
    createdAt: "2026-11-28T15:04:05.000Z",
    attribution: { utm_source: "linkedin", landing_page: "/transformation", referrer: null },
  };

  it("has every answer, the page and the first touch, and replies go to the lead", () => {
    const mail = leadNotificationEmail("success@advisoraccelerator.com", lead);
    expect(mail.to).toBe("success@advisoraccelerator.com");
    expect(mail.replyTo).toBe("jordan@reyeswealth.example");
    expect(mail.subject).toBe('Consultation request: Jordan "JR" <Reyes>');
    for (const line of [
      "Phone: —",
      "Firm: Reyes & Co",
      "Assets under management: $50M to $100M",
      "Page: /get-started-ai",
      "Received: 2026-11-28 15:04 UTC",
      "Source: linkedin",
      "Medium: —",
      "Referrer: —",
      "Landing page: /transformation",
      "Line one\n<script>alert(1)</script>",
    ])
      expect(mail.text).toContain(line);
  });

  it("escapes everything the visitor typed in its HTML, and keeps their line breaks", () => {
    const { html } = leadNotificationEmail("success@advisoraccelerator.com", lead);
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<Reyes>");
    expect(html).toContain("Jordan &quot;JR&quot; &lt;Reyes&gt;");
    expect(html).toContain("Reyes &amp; Co");
    expect(html).toContain("Line one\n&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("white-space:pre-wrap");
  });

  it("its subject carries the name only: one line, no links, at most SUBJECT_NAME_MAX characters", () => {
    const subject = (name: string) => leadNotificationEmail("s@a.co", { ...lead, name }).subject;
    // A header injection attempt stays on the subject's one line.
    expect(subject("Dana\r\nBcc: everyone@example.com")).toBe("Consultation request: Dana Bcc:");
    expect(subject("Win big at https://cheap-pills.example/now or www.spam.example")).toBe(
      "Consultation request: Win big at or",
    );
    expect(subject("Visit cheap-pills.example today")).toBe("Consultation request: Visit today");
    // A name's own dots stay.
    expect(subject("J.R. Ortiz")).toBe("Consultation request: J.R. Ortiz");
    expect(subject("Anne St.John")).toBe("Consultation request: Anne St.John");
    const long = subject("A".repeat(120));
    expect(long).toBe(`Consultation request: ${"A".repeat(SUBJECT_NAME_MAX - 1)}…`);
    // Nothing left but links: a subject without a name; the message has every answer as typed.
    const linksOnly = leadNotificationEmail("s@a.co", { ...lead, name: "http://x.example" });
    expect(linksOnly.subject).toBe("Consultation request");
    expect(linksOnly.text).toContain("http://x.example");
  });

  it("says so when they left what they want help with empty", () => {
    expect(leadNotificationEmail("s@a.co", { ...lead, help: null }).text).toContain("They left this empty.");
  });
});

describe("the visitor's confirmation", () => {
  const BUSINESS = "success@advisoraccelerator.com";
  const VISITOR = "jordan@reyeswealth.example";
  const confirm = (name: string) => leadConfirmationEmail(VISITOR, name, BUSINESS);
  const greeting = (name: string) => confirm(name).text.split("\n\n")[1];

  it("goes to the visitor in the business's words: who it is from, when a coach replies, replies to the business", () => {
    const mail = confirm("Jordan Reyes");
    expect(mail.to).toBe(VISITOR);
    expect(mail.replyTo).toBe(BUSINESS);
    expect(mail.subject).toBe("Your strategy call request is in");
    expect(mail.text).toBe(
      [
        "Your request is in",
        `Thank you, Jordan. We have your request for a free 30-minute strategy call with ${BRAND}.`,
        "What happens next",
        "A coach reads every request and replies within one business day, by e-mail to this address, to book your call.",
        "On the call, you review your practice together and leave with the two or three moves that would grow it fastest.",
        `Need us sooner, or want to add something? Reply to this e-mail: it reaches the team at ${BUSINESS}.`,
        `You receive this because this address was entered in the consultation form on the ${BRAND} website. If that was not you, reply to tell us and we will not contact you.`,
        BRAND,
      ].join("\n\n"),
    );
  });

  it("promises the reply time the consultation form shows, from content/site.yaml", () => {
    const site = load(readFileSync(new URL("../../content/site.yaml", import.meta.url), "utf8")) as {
      site: { contact: { replyWithin: string } };
    };
    expect(LEAD_REPLY_WITHIN).toBe(`within ${site.site.contact.replyWithin}`);
    // The form's two introductions (a consultation page, /apply) and its Sent view's first step say
    // it from the same field, never in words of their own.
    const form = readFileSync(new URL("../../src/features/leads/ConsultationForm.astro", import.meta.url), "utf8");
    expect(form.match(/within \$?\{contact\.replyWithin\}/gi)).toHaveLength(3);
    expect(form).not.toMatch(/business day/i);
  });

  it("carries nothing the visitor typed but their first name: one line, no link or address, capped", () => {
    expect(greeting("  Jordan   Reyes ")).toMatch(/^Thank you, Jordan\. /);
    expect(greeting("Dana\r\nBcc: everyone@example.com")).toMatch(/^Thank you, Dana\. /);
    expect(greeting("https://cheap-pills.example/now Win big")).toMatch(/^Thank you, Win\. /);
    expect(greeting("www.spam.example")).toMatch(/^Thank you\. We have/);
    expect(greeting("everyone@example.com")).toMatch(/^Thank you\. We have/);
    expect(greeting("A".repeat(120))).toBe(
      `Thank you, ${"A".repeat(SUBJECT_NAME_MAX - 1)}…. We have your request for a free 30-minute strategy call with ${BRAND}.`,
    );
    for (const name of [
      "Visit cheap-pills.example today",
      "Dana\u2028Call 1-900-555-0100 to claim your prize at www.prize.example",
      'Jordan <a href="https://phish.example">verify your account</a>',
      "Jordan\u202eevil.example",
    ]) {
      const mail = confirm(name);
      expect(mail.subject, name).toBe("Your strategy call request is in");
      for (const part of [mail.subject, mail.text, mail.html]) {
        for (const typed of ["example", "1-900", "prize", "verify", 'href="https://phish', "\u2028", "\u202e"])
          expect(part, `${name}: ${typed}`).not.toContain(typed);
      }
      // No link at all, not even the business's own: nothing to click in a message to any address.
      expect(mail.html, name).not.toMatch(/<a[\s>]|href=/i);
    }
    // The first word of a name that is markup is text: escaped, never a tag.
    const tagged = confirm("<b>Jordan</b> Reyes").html;
    expect(tagged).toContain("Thank you, &lt;b&gt;Jordan&lt;/b&gt;.");
    expect(tagged).not.toContain("<b>");
  });

  it("is the same message for the same name, so a retry under its idempotency key is not a different e-mail", () => {
    expect(confirm("Jordan Reyes")).toEqual(confirm("Jordan Reyes"));
  });
});
