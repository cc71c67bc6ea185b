/**
 * Which cohort a buyer of a cohort program joins, and the calendar days that rule counts in. One
 * copy for every place that says it: the pages that sell the program and their scripts, the
 * checkout page, the checkout function (which refuses the program when no cohort is open and puts
 * the buyer's cohort in the Stripe session), the webhook (which records it on the order, where the
 * database's access rule reads it) and the e-mails. The rule (docs/member-area.md, "Cohorts"): a
 * buyer joins the cohort that started at most JOIN_WITHIN_DAYS days before the day they buy, its
 * weeks so far open at once, otherwise the next one to start; with neither, enrolment is closed.
 * Days are calendar days in the business's time zone (content/site.yaml `timeZone`), written
 * YYYY-MM-DD, so comparing two days is comparing two strings.
 */

/** How many days after its start a cohort still takes new members (its start day counts as 0). */
export const JOIN_WITHIN_DAYS = 14;

/** The cohort a buyer joins. */
export interface Cohort {
  /** Its start day, YYYY-MM-DD: the first day of week 1. */
  start: string;
  /** Whether it has started (on or before the day of purchase): its weeks so far open at once. */
  started: boolean;
}

/** Today in `timeZone` (an IANA name), as YYYY-MM-DD. */
export function dayIn(timeZone: string, at: Date = new Date()): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);
}

/** A day (YYYY-MM-DD) plus `days`, as a day. Calendar arithmetic, free of time zones. */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/**
 * The cohort a buyer who buys on `day` joins, from the program's cohort start days (any order):
 * the latest that started within JOIN_WITHIN_DAYS days before, otherwise the first after; null
 * when there is neither (enrolment is closed).
 */
export function cohortOn(starts: readonly string[], day: string): Cohort | null {
  const sorted = [...new Set(starts)].sort();
  const earliest = addDays(day, -JOIN_WITHIN_DAYS);
  const started = sorted.filter((start) => start >= earliest && start <= day).at(-1);
  if (started) return { start: started, started: true };
  const next = sorted.find((start) => start > day);
  return next ? { start: next, started: false } : null;
}

/**
 * The cohorts a seat can be offered in on `day`: the one a buyer would join that day and every
 * later one, in order (the desk's offer form, and the function that sends offers, which refuses
 * any other).
 */
export function openCohorts(starts: readonly string[], day: string): string[] {
  const joinable = cohortOn(starts, day);
  return joinable ? [...new Set(starts)].sort().filter((start) => start >= joinable.start) : [];
}

/** The cohort a buyer joins at `at` (default now), the day counted in `timeZone`. */
export function cohortAt(starts: readonly string[], timeZone: string, at: Date = new Date()): Cohort | null {
  return cohortOn(starts, dayIn(timeZone, at));
}

/**
 * The days after `from` on which the cohort a buyer joins changes, with the cohort from that day
 * on (null: enrolment closed): a start day (the cohort has started) and the day after a cohort's
 * last day to join (the next one, or none). Between two of them `cohortOn` answers the same, so a
 * page can carry them and know the answer on any later day without the rule: the static pages do
 * (src/components/cohort/CohortSwitch.astro).
 */
export function cohortChanges(starts: readonly string[], from: string): { day: string; cohort: Cohort | null }[] {
  const days = [...new Set(starts.flatMap((start) => [start, addDays(start, JOIN_WITHIN_DAYS + 1)]))]
    .filter((day) => day > from)
    .sort();
  const changes: { day: string; cohort: Cohort | null }[] = [];
  let last = JSON.stringify(cohortOn(starts, from));
  for (const day of days) {
    const cohort = cohortOn(starts, day);
    const key = JSON.stringify(cohort);
    if (key !== last) changes.push({ day, cohort });
    last = key;
  }
  return changes;
}

/** The week of its cohort that `day` falls in (1 on the start day); 0 before the start. */
export function cohortWeek(start: string, day: string): number {
  if (day < start) return 0;
  const days = (Date.parse(`${day}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000;
  return Math.floor(days / 7) + 1;
}

/** Whether `value` is a real calendar day written YYYY-MM-DD. */
export function isDay(value: unknown): value is string {
  return typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value) && addDays(value, 0) === value;
}

/** "Monday, January 11, 2027". */
export function formatDay(day: string): string {
  return new Intl.DateTimeFormat("en-US", {
    weekday: "long",
    month: "long",
    day: "numeric",
    year: "numeric",
    timeZone: "UTC",
  }).format(new Date(`${day}T00:00:00Z`));
}
