/** The evidence a disputed payment is answered with (functions/_shared/dispute-evidence.ts). */
import { describe, expect, it } from "vitest";
import { accessLog, type BuyerActivity, disputeEvidence } from "../../functions/_shared/dispute-evidence.ts";

const activity: BuyerActivity = {
  email: "dana@example.com",
  name: "Dana Whitfield",
  account_created_at: "2026-11-20T14:03:10Z",
  last_sign_in_at: "2026-11-22T08:00:00Z",
  ordered_at: "2026-11-20T14:02:55Z",
  product_key: "AI_ACCELERATOR",
  amount_total: 1_500_000,
  currency: "usd",
  cohort_start: "2027-01-11",
  sign_ins: [{ at: "2026-11-20T14:05:00Z", ip: "203.0.113.7", user_agent: "Mozilla/5.0 (iPhone)" }],
  lessons: [
    {
      lesson: "ai-1-1",
      title: "Your ideal client",
      last_activity_at: "2026-11-21T09:12:00Z",
      completed_at: "2026-11-21T09:30:00Z",
    },
    { lesson: "ai-1-2", title: null, last_activity_at: "2026-11-22T08:05:00Z", completed_at: null },
  ],
  downloads: [
    { at: "2026-11-21T09:20:00Z", path: "ai-advisor-accelerator/positioning-one-pager.pdf", ip: "203.0.113.7" },
  ],
};
const context = {
  program: { name: "AI Advisor Accelerator", description: "Twelve weeks of cohort coaching." },
  reference: "3F9A27C1",
  refundPolicy: "30-day money-back guarantee.",
  termsUrl: "https://advisoraccelerator.com/terms-of-service",
  portalUrl: "https://advisoraccelerator.com/portal",
};

describe("a dispute's evidence", () => {
  it("logs the purchase, the account, each sign-in, lesson and download with its time and address", () => {
    expect(accessLog(activity, context).split("\n")).toEqual([
      "Purchase: 2026-11-20 14:02 UTC, AI Advisor Accelerator, $15,000 (order 3F9A27C1), by dana@example.com.",
      "Account created: 2026-11-20 14:03 UTC.",
      "Sign-ins to the client portal (time, address, browser):",
      "  2026-11-20 14:05 UTC  203.0.113.7  Mozilla/5.0 (iPhone)",
      "Last sign-in: 2026-11-22 08:00 UTC.",
      "Lessons worked in (last activity; completed):",
      "  2026-11-21 09:12 UTC  Your ideal client; completed 2026-11-21 09:30 UTC",
      "  2026-11-22 08:05 UTC  ai-1-2",
      "Files downloaded (time, address, file):",
      "  2026-11-21 09:20 UTC  203.0.113.7  ai-advisor-accelerator/positioning-one-pager.pdf",
    ]);
  });

  it("says plainly what it has no record of, rather than leaving it out", () => {
    const log = accessLog({ ...activity, sign_ins: [], lessons: [], downloads: [], last_sign_in_at: null }, context);
    expect(log).toContain("Sign-ins to the client portal: none recorded.");
    expect(log).toContain("Lessons worked in: none recorded.");
    expect(log).toContain("Files downloaded: none recorded.");
  });

  it("fills Stripe's fields: the buyer, the service date (the cohort's start), the refund policy the checkout showed", () => {
    const evidence = disputeEvidence(activity, context);
    expect(evidence).toMatchObject({
      customer_email_address: "dana@example.com",
      customer_name: "Dana Whitfield",
      service_date: "2027-01-11",
    });
    expect(evidence.refund_policy_disclosure).toContain('"30-day money-back guarantee."');
    expect(evidence.refund_policy_disclosure).toContain("https://advisoraccelerator.com/terms-of-service");
    expect(evidence.product_description).toContain("https://advisoraccelerator.com/portal");
    // A self-paced program's service began the day it was bought; no name, no name field.
    const selfPaced = disputeEvidence({ ...activity, cohort_start: null, name: null }, context);
    expect(selfPaced.service_date).toBe("2026-11-20");
    expect(selfPaced).not.toHaveProperty("customer_name");
  });
});
