/**
 * The cohort rule (packages/shared/cohort.ts; docs/member-area.md, "Cohorts"): a buyer joins the
 * cohort that started at most 14 days before the day they buy, otherwise the next; with neither,
 * the program cannot be bought. The day is the business's, in its time zone.
 */
import { describe, expect, it } from "vitest";
import {
  addDays,
  cohortAt,
  cohortChanges,
  cohortOn,
  cohortWeek,
  dayIn,
  formatDay,
  isDay,
  JOIN_WITHIN_DAYS,
  openCohorts,
} from "@advisor-accelerator/shared/cohort.ts";

const STARTS = ["2027-01-11", "2027-04-12", "2027-07-12"];

describe("the cohort a buyer joins", () => {
  it("is the next one to start when none started in the last 14 days", () => {
    expect(cohortOn(STARTS, "2026-11-28")).toEqual({ start: "2027-01-11", started: false });
    expect(cohortOn(STARTS, "2027-01-10")).toEqual({ start: "2027-01-11", started: false });
  });

  it("is the one that starts today, as started: its first week is open", () => {
    expect(cohortOn(STARTS, "2027-01-11")).toEqual({ start: "2027-01-11", started: true });
  });

  it("is the one that started up to 14 days before, the 14th day included", () => {
    expect(JOIN_WITHIN_DAYS).toBe(14);
    expect(cohortOn(STARTS, "2027-01-18")).toEqual({ start: "2027-01-11", started: true });
    expect(cohortOn(STARTS, "2027-01-25")).toEqual({ start: "2027-01-11", started: true });
  });

  it("is the next one from the 15th day after a start", () => {
    expect(cohortOn(STARTS, "2027-01-26")).toEqual({ start: "2027-04-12", started: false });
    expect(cohortOn(STARTS, "2027-04-11")).toEqual({ start: "2027-04-12", started: false });
  });

  it("is the latest of two that both started within 14 days", () => {
    expect(cohortOn(["2027-01-04", "2027-01-11"], "2027-01-12")).toEqual({ start: "2027-01-11", started: true });
  });

  it("takes the start days in any order, and a day listed twice once", () => {
    expect(cohortOn(["2027-07-12", "2027-01-11", "2027-04-12", "2027-01-11"], "2027-02-01")).toEqual({
      start: "2027-04-12",
      started: false,
    });
  });

  it("is none when the last cohort started more than 14 days ago: enrolment is closed", () => {
    expect(cohortOn(STARTS, "2027-07-26")).toEqual({ start: "2027-07-12", started: true });
    expect(cohortOn(STARTS, "2027-07-27")).toBeNull();
    expect(cohortOn([], "2027-01-01")).toBeNull();
  });

  it("counts across month and leap-year ends", () => {
    expect(cohortOn(["2028-02-20"], "2028-03-05")).toEqual({ start: "2028-02-20", started: true });
    expect(cohortOn(["2028-02-20"], "2028-03-06")).toBeNull();
    expect(cohortOn(["2026-12-21"], "2027-01-04")).toEqual({ start: "2026-12-21", started: true });
  });
});

describe("the cohorts a seat can be offered in", () => {
  it("are the one a buyer would join that day and every later one, in order", () => {
    expect(openCohorts(STARTS, "2026-11-28")).toEqual(STARTS);
    // Started 14 days before: still joinable, so still offered.
    expect(openCohorts([...STARTS].reverse(), "2027-01-25")).toEqual(STARTS);
    expect(openCohorts(STARTS, "2027-01-26")).toEqual(["2027-04-12", "2027-07-12"]);
  });

  it("are none once enrolment is closed", () => {
    expect(openCohorts(STARTS, "2027-07-27")).toEqual([]);
    expect(openCohorts([], "2027-01-01")).toEqual([]);
  });
});

describe("the day of purchase is the business's, in its time zone", () => {
  it("is still the day before in Chicago at 05:30 UTC", () => {
    const early = new Date("2027-01-11T05:30:00Z");
    expect(dayIn("America/Chicago", early)).toBe("2027-01-10");
    expect(cohortAt(STARTS, "America/Chicago", early)).toEqual({ start: "2027-01-11", started: false });
    expect(cohortAt(STARTS, "UTC", early)).toEqual({ start: "2027-01-11", started: true });
  });

  it("closes the window at midnight in the business's zone, not the buyer's", () => {
    // 23:30 on January 25 in Chicago (CST, UTC-6) is already the 26th in UTC and in Tokyo.
    const late = new Date("2027-01-26T05:30:00Z");
    expect(cohortAt(STARTS, "America/Chicago", late)).toEqual({ start: "2027-01-11", started: true });
    expect(cohortAt(STARTS, "Asia/Tokyo", late)).toEqual({ start: "2027-04-12", started: false });
  });

  it("is counted in whole days across a daylight-saving change", () => {
    // Chicago moves to CDT on March 14, 2027: the 14th day after March 8 is March 22.
    expect(cohortAt(["2027-03-08"], "America/Chicago", new Date("2027-03-22T12:00:00Z"))).toEqual({
      start: "2027-03-08",
      started: true,
    });
    expect(cohortAt(["2027-03-08"], "America/Chicago", new Date("2027-03-23T05:30:00Z"))).toBeNull();
  });
});

describe("the days the answer changes (what the static pages carry)", () => {
  it("lists each start and each day after a cohort's last day to join, with the cohort from then on", () => {
    expect(cohortChanges(STARTS, "2026-11-28")).toEqual([
      { day: "2027-01-11", cohort: { start: "2027-01-11", started: true } },
      { day: "2027-01-26", cohort: { start: "2027-04-12", started: false } },
      { day: "2027-04-12", cohort: { start: "2027-04-12", started: true } },
      { day: "2027-04-27", cohort: { start: "2027-07-12", started: false } },
      { day: "2027-07-12", cohort: { start: "2027-07-12", started: true } },
      { day: "2027-07-27", cohort: null },
    ]);
  });

  it("agrees with the rule on every day of the year it covers", () => {
    const from = "2026-11-28";
    const changes = cohortChanges(STARTS, from);
    let expected = cohortOn(STARTS, from);
    for (let day = from; day <= "2027-12-31"; day = addDays(day, 1)) {
      const change = changes.find((c) => c.day === day);
      if (change) expected = change.cohort;
      expect(cohortOn(STARTS, day), day).toEqual(expected);
    }
  });

  it("lists none once enrolment has closed for good, and only later days", () => {
    expect(cohortChanges(STARTS, "2027-08-01")).toEqual([]);
    expect(cohortChanges(STARTS, "2027-05-01").map((c) => c.day)).toEqual(["2027-07-12", "2027-07-27"]);
  });
});

describe("cohort days", () => {
  it("numbers the weeks from the start", () => {
    expect(cohortWeek("2027-01-11", "2027-01-10")).toBe(0);
    expect(cohortWeek("2027-01-11", "2027-01-11")).toBe(1);
    expect(cohortWeek("2027-01-11", "2027-01-17")).toBe(1);
    expect(cohortWeek("2027-01-11", "2027-01-18")).toBe(2);
    expect(cohortWeek("2027-01-11", "2027-01-25")).toBe(3);
  });

  it("adds days across years", () => {
    expect(addDays("2026-12-25", 14)).toBe("2027-01-08");
    expect(addDays("2027-01-08", -14)).toBe("2026-12-25");
  });

  it("knows a real day from a malformed or impossible one", () => {
    expect(isDay("2027-01-11")).toBe(true);
    expect(isDay("2027-02-30")).toBe(false);
    expect(isDay("2027-1-11")).toBe(false);
    expect(isDay(20270111)).toBe(false);
  });

  it("writes a day in full", () => {
    expect(formatDay("2027-01-11")).toBe("Monday, January 11, 2027");
  });
});
