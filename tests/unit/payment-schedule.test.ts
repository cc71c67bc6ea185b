/**
 * A coached offer's payment dates and a plan's progress (packages/shared/payment-schedule.ts), as
 * the offer page, the e-mail and the portal state them and as Stripe bills a monthly subscription.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import {
  addMonths,
  membershipStart,
  planLines,
  planProgress,
  planSchedule,
  progressLine,
  readableDay,
} from "../../packages/shared/payment-schedule.ts";
import { contentDir } from "./content-files";

describe("monthly payment days", () => {
  it("fall on the first payment's day of the month", () => {
    expect([0, 1, 2, 11, 12].map((n) => addMonths("2026-09-02", n))).toEqual([
      "2026-09-02",
      "2026-10-02",
      "2026-11-02",
      "2027-08-02",
      "2027-09-02",
    ]);
  });

  it("fall on a short month's last day, then back on the anchor's day (Stripe: billing cycle anchor of January 31)", () => {
    expect([0, 1, 2, 3].map((n) => addMonths("2027-01-31", n))).toEqual([
      "2027-01-31",
      "2027-02-28",
      "2027-03-31",
      "2027-04-30",
    ]);
    // February 29 in a leap year.
    expect(addMonths("2028-01-31", 1)).toBe("2028-02-29");
    expect(addMonths("2026-08-30", 6)).toBe("2027-02-28");
  });

  it("refuse what is not a day or not whole months", () => {
    expect(() => addMonths("2027-02-30", 1)).toThrow(/Not a day/);
    expect(() => addMonths("March 1", 1)).toThrow(/Not a day/);
    expect(() => addMonths("2027-03-01", 1.5)).toThrow(/Whole months/);
  });
});

describe("a plan's schedule and progress", () => {
  const offers = load(readFileSync(join(contentDir, "offers.yaml"), "utf8")) as Record<
    string,
    { payment: { plans: { instalmentsCents: number[] }[]; membership?: { startsAfterMonths: number } } }
  >;
  const sixMonths = offers["ai-advisor-accelerator"]!.payment.plans[0]!.instalmentsCents;

  it("list every payment of the content's plan, the first on the day it is bought", () => {
    const schedule = planSchedule(sixMonths, "2027-01-31");
    expect(schedule.map((p) => p.day)).toEqual([
      "2027-01-31",
      "2027-02-28",
      "2027-03-31",
      "2027-04-30",
      "2027-05-31",
      "2027-06-30",
    ]);
    expect(schedule.map((p) => p.amountCents)).toEqual(sixMonths);
  });

  it("read as a person says it: two of six paid and the next, then paid in full", () => {
    const schedule = planSchedule(sixMonths, "2027-01-01");
    expect(progressLine(planProgress(schedule, 2), 2027)).toBe("2 of 6 paid, next $6,000 on March 1");
    expect(progressLine(planProgress(schedule, 1), 2026)).toBe("1 of 6 paid, next $6,000 on February 1, 2027");
    expect(progressLine(planProgress(schedule, 6), 2027)).toBe("Paid in full");
    expect(() => planProgress(schedule, 7)).toThrow(RangeError);
  });

  it("start the membership the months the content says after the cohort's first day", () => {
    const { startsAfterMonths } = offers["ai-advisor-accelerator"]!.payment.membership!;
    expect(membershipStart("2027-01-11", startsAfterMonths)).toBe(addMonths("2027-01-11", startsAfterMonths));
    expect(membershipStart("2027-01-11", 3)).toBe("2027-04-11");
    expect(readableDay("2027-04-11")).toBe("April 11, 2027");
  });
});

describe("a plan as a person reads it (planLines)", () => {
  const six = planSchedule(Array(6).fill(600000), "2027-01-31");

  it("gives its progress, paid capped at the payments, and since when a payment is past due on the business's day", () => {
    expect(planLines(six, 2, null, "America/Chicago", 2027)).toEqual({
      line: "2 of 6 paid, next $6,000 on March 31",
      pastDue: null,
    });
    expect(planLines(six, 9, null, "America/Chicago", 2027).line).toBe("Paid in full");
    // 03:00 UTC on March 1 is still February 28 in Chicago.
    expect(planLines(six, 2, "2027-03-01T03:00:00Z", "America/Chicago", 2027).pastDue).toBe(
      "Past due since February 28",
    );
  });
});
