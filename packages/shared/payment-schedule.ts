/**
 * When each payment of a coached offer falls due, and how a plan's progress reads (content/offers.yaml
 * `payment`; issue: an offer paid in full, by monthly instalments, or by the monthly membership).
 * One copy for every place that states it: the offer page and its e-mail (each option's schedule in
 * dates and amounts), the portal's purchase history ("2 of 6 paid, next $6,000 on March 1") and the
 * functions that make the Stripe subscriptions, so that what a page promises is what Stripe bills.
 *
 * Days are calendar days written YYYY-MM-DD, as in ./cohort.ts. A monthly payment falls on the
 * first payment's day of the month, as Stripe bills a monthly subscription on its billing cycle
 * anchor's day, and in a month without that day on the month's last day, then back on the anchor's
 * day: "A monthly subscription with a billing cycle anchor date of January 31 bills the last day of
 * the month closest to the anchor date, so February 28 (or February 29 in a leap year), then March
 * 31, April 30" (Stripe docs, Subscriptions, "Set the subscription billing renewal date"). Each
 * date is counted from the anchor, never from the month before, so a short month never moves the
 * rest.
 */
import { dayIn, isDay } from "./cohort.ts";
import { formatCents } from "./money.ts";

/** One payment: its day (YYYY-MM-DD) and amount in cents. */
export interface Payment {
  day: string;
  amountCents: number;
}

/** The number of days in `month` (1-12) of `year`. */
function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A day's year, month and day of the month; a RangeError for what the calendar does not have (February 30). */
function parts(day: string): [number, number, number] {
  if (!isDay(day)) throw new RangeError(`Not a day (YYYY-MM-DD): ${day}`);
  const [year, month, date] = day.split("-").map(Number);
  return [year!, month!, date!];
}

/**
 * The day `months` months after `anchor` on the anchor's day of the month, or the month's last day
 * when it is shorter (2027-01-31 + 1 month is 2027-02-28; + 2 months, 2027-03-31).
 */
export function addMonths(anchor: string, months: number): string {
  if (!Number.isInteger(months)) throw new RangeError(`Whole months only, got ${months}`);
  const [year, month, day] = parts(anchor);
  const index = year * 12 + (month - 1) + months;
  const y = Math.floor(index / 12);
  const m = (index % 12) + 1;
  const d = Math.min(day, daysIn(y, m));
  return `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

/** A plan's payments: the first on `firstDay` (the day it is bought), then one a month, in order. */
export function planSchedule(instalmentsCents: readonly number[], firstDay: string): Payment[] {
  return instalmentsCents.map((amountCents, i) => ({ day: addMonths(firstDay, i), amountCents }));
}

/** The membership's first charge: `startsAfterMonths` months after the cohort's first day. */
export function membershipStart(cohortStart: string, startsAfterMonths: number): string {
  return addMonths(cohortStart, startsAfterMonths);
}

/** Where a plan stands once `paid` of its payments have been paid, first to last. */
export interface PlanProgress {
  paid: number;
  total: number;
  /** The next payment due; null once every one is paid. */
  next: Payment | null;
  paidInFull: boolean;
}

export function planProgress(schedule: readonly Payment[], paid: number): PlanProgress {
  if (!Number.isInteger(paid) || paid < 0 || paid > schedule.length) {
    throw new RangeError(`${paid} payments paid of a plan of ${schedule.length}`);
  }
  return { paid, total: schedule.length, next: schedule[paid] ?? null, paidInFull: paid === schedule.length };
}

/** A day as a person reads it, "March 1" (with the year when it is not `thisYear`: "January 4, 2028"). */
export function readableDay(day: string, thisYear?: number): string {
  const [year] = parts(day);
  return new Intl.DateTimeFormat("en-US", {
    timeZone: "UTC",
    month: "long",
    day: "numeric",
    ...(thisYear === undefined || year !== thisYear ? { year: "numeric" } : {}),
  }).format(new Date(`${day}T00:00:00Z`));
}

/** A plan's progress in a line: "2 of 6 paid, next $6,000 on March 1", or "Paid in full". */
export function progressLine(progress: PlanProgress, thisYear?: number): string {
  if (progress.paidInFull || !progress.next) return "Paid in full";
  const { next } = progress;
  return `${progress.paid} of ${progress.total} paid, next ${formatCents(next.amountCents)} on ${readableDay(next.day, thisYear)}`;
}

/**
 * A plan as a person reads it, wherever it is shown (purchase history, the desk): its progress
 * (`progressLine`, `paid` capped at the payments) and, when a payment is past due, since when, on
 * the business's day: "Past due since December 28".
 */
export function planLines(
  payments: readonly Payment[],
  paid: number,
  pastDueSince: string | null,
  timeZone: string,
  thisYear?: number,
): { line: string; pastDue: string | null } {
  const line = progressLine(planProgress(payments, Math.min(paid, payments.length)), thisYear);
  if (!pastDueSince) return { line, pastDue: null };
  return { line, pastDue: `Past due since ${readableDay(dayIn(timeZone, new Date(pastDueSince)), thisYear)}` };
}
