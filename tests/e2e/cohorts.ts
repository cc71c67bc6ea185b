/**
 * What the pages should say of a program's cohort today, worked out as the site works it out: the
 * rule of packages/shared/cohort.ts on content/programs' start days, in content/site.yaml's time
 * zone, in the words of content/shared-copy.yaml `cohort`. So the tests follow the content (and the
 * calendar) instead of a date written into them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
import { type Cohort, cohortAt, formatDay } from "@advisor-accelerator/shared/cohort.ts";
import { contentDir, loadPrograms } from "../unit/content-files";

const programs = loadPrograms();
const site = (load(readFileSync(join(contentDir, "site.yaml"), "utf8")) as { site: { timeZone: string } }).site;

/** The words of content/shared-copy.yaml `cohort`. */
export const COHORT_COPY = (
  load(readFileSync(join(contentDir, "shared-copy.yaml"), "utf8")) as {
    cohort: { next: string; started: string; closed: string; ask: string; checkout: { next: string; started: string } };
  }
).cohort;

export const TIME_ZONE = site.timeZone;

/** The program with checkout key `key`, as content has it. */
export const programOf = (key: string) => programs.find((p) => p.checkoutKey === key)!;

/** The cohort a buyer of `key` joins at `at`: undefined for a self-paced program, null when closed. */
export function cohortOf(key: string, at: Date = new Date()): Cohort | null | undefined {
  const program = programOf(key);
  return program.cohort ? cohortAt(program.cohort.starts, TIME_ZONE, at) : undefined;
}

/** `text` with the cohort's first day written in full. */
export const withDay = (text: string, cohort: Cohort) => text.replace("{date}", formatDay(cohort.start));

/** The line a program page, /purchase-course and /programs show for an open cohort. */
export const cohortLine = (cohort: Cohort) => withDay(cohort.started ? COHORT_COPY.started : COHORT_COPY.next, cohort);

/** The checkout's first note: "Instant access after payment", or the cohort's, for `key` today. */
export function checkoutNote(key: string): string | null {
  const cohort = cohortOf(key);
  if (cohort === undefined) return "Instant access after payment";
  if (cohort === null) return null;
  return withDay(cohort.started ? COHORT_COPY.checkout.started : COHORT_COPY.checkout.next, cohort);
}
