/**
 * The member area's pure logic: addresses, progress, the next lesson, and when a cohort lesson
 * opens. No browser, no supabase-js: unit-tested in logic.test.ts. The database decides who may
 * read a lesson (supabase/migrations/*_member_area.sql); what this module computes is only what
 * the pages say about it, with the same rule as `lesson_unlocks_at` there.
 */
import { addDays, dayIn, formatDay } from "@advisor-accelerator/shared/cohort.ts";

export { addDays, formatDay };

/** Where the courses live in the portal. */
export const COURSES_PATH = "/portal/courses";

/** The course page of a program: its outline and progress. */
export const courseHref = (program: string) => `${COURSES_PATH}/${program}`;

/** A lesson's page. */
export const lessonHref = (program: string, slug: string) => `${COURSES_PATH}/${program}/${slug}`;

/** A lesson as the outline shows it: public facts only (no body, no video id, no files). */
export interface OutlineLesson {
  /** `<program>/<slug>`: the row's id in course_lessons and lesson_progress. */
  id: string;
  slug: string;
  href: string;
  title: string;
  summary: string;
  /** Minutes. */
  duration: number;
  /** 1-based module number. */
  module: number;
  /** 1-based place in its module. */
  position: number;
  freePreview: boolean;
  /** The cohort week it opens (1: the cohort's first day); null when it opens with the purchase. */
  unlockWeek: number | null;
  hasVideo: boolean;
  /** How many files it offers. */
  downloads: number;
}

export interface OutlineModule {
  number: number;
  /** The curriculum's label, e.g. "Weeks 3-4" or "Module 2". */
  label: string;
  title: string;
  description: string;
  lessons: OutlineLesson[];
}

/**
 * A module as a page hands it to its island, in the page's HTML: without what the lesson's program,
 * slug and place in the list say again (id, address, module, position), and without the fields
 * left at their usual value (the label "Module <n>", no preview, no unlock week, no video, no
 * files), so the course outline's first screen fits in 14 KB. `unpackModules` gives the modules
 * back as they were.
 */
export interface PackedModule {
  label?: string;
  title: string;
  description: string;
  lessons: {
    slug: string;
    title: string;
    summary: string;
    duration: number;
    freePreview?: true;
    unlockWeek?: number;
    hasVideo?: true;
    downloads?: number;
  }[];
}

/** The modules packed for an island (see PackedModule). */
export function packModules(modules: readonly OutlineModule[]): PackedModule[] {
  return modules.map(({ number, label, title, description, lessons }) => ({
    ...(label !== `Module ${number}` && { label }),
    title,
    description,
    lessons: lessons.map((l) => ({
      slug: l.slug,
      title: l.title,
      summary: l.summary,
      duration: l.duration,
      ...(l.freePreview && { freePreview: true as const }),
      ...(l.unlockWeek !== null && { unlockWeek: l.unlockWeek }),
      ...(l.hasVideo && { hasVideo: true as const }),
      ...(l.downloads > 0 && { downloads: l.downloads }),
    })),
  }));
}

/** The modules of `program` as packModules packed them. */
export function unpackModules(program: string, packed: readonly PackedModule[]): OutlineModule[] {
  return packed.map(({ label, title, description, lessons }, index) => ({
    number: index + 1,
    label: label ?? `Module ${index + 1}`,
    title,
    description,
    lessons: lessons.map((l, position) => ({
      id: `${program}/${l.slug}`,
      slug: l.slug,
      href: lessonHref(program, l.slug),
      title: l.title,
      summary: l.summary,
      duration: l.duration,
      module: index + 1,
      position: position + 1,
      freePreview: l.freePreview ?? false,
      unlockWeek: l.unlockWeek ?? null,
      hasVideo: l.hasVideo ?? false,
      downloads: l.downloads ?? 0,
    })),
  }));
}

/** A row of lesson_progress as the portal reads it. */
export interface ProgressRow {
  lesson_id: string;
  completed: boolean;
  video_position: number;
  updated_at: string;
}

export type ProgressMap = ReadonlyMap<string, ProgressRow>;

export function progressMap(rows: readonly ProgressRow[]): ProgressMap {
  return new Map(rows.map((row) => [row.lesson_id, row]));
}

export interface CourseProgress {
  done: number;
  total: number;
  /** Whole percent done, rounded down (100 only when every lesson is done). */
  percent: number;
  /** Whether the customer has opened or finished any lesson of the course. */
  started: boolean;
  /** The lesson to go on with: the first not done, in course order; null when all are done. */
  next: OutlineLesson | null;
}

/** How far through `lessons` (the course in order) the customer is. */
export function courseProgress(lessons: readonly OutlineLesson[], progress: ProgressMap): CourseProgress {
  const done = lessons.filter((l) => progress.get(l.id)?.completed).length;
  const total = lessons.length;
  return {
    done,
    total,
    percent: total === 0 ? 0 : Math.floor((done / total) * 100),
    started: lessons.some((l) => progress.has(l.id)),
    next: lessons.find((l) => !progress.get(l.id)?.completed) ?? null,
  };
}

/** "3 of 24 lessons". */
export function lessonCount(done: number, total: number): string {
  return `${done} of ${total} ${total === 1 ? "lesson" : "lessons"}`;
}

/** "18 min", or "1 h 5 min" for an hour or more. */
export function formatDuration(minutes: number): string {
  if (minutes < 60) return `${minutes} min`;
  const rest = minutes % 60;
  return rest === 0 ? `${minutes / 60} h` : `${Math.floor(minutes / 60)} h ${rest} min`;
}

/**
 * The day a lesson opens for a customer whose course counts from `startDay`: the start plus
 * (week - 1) weeks, as `lesson_unlocks_at` computes it; null for a lesson that opens with the
 * purchase (no unlock week).
 */
export function unlockDay(startDay: string, unlockWeek: number | null): string | null {
  return unlockWeek === null ? null : addDays(startDay, (unlockWeek - 1) * 7);
}

/** Whether a lesson opening on `day` (midnight in `timeZone`) is open at `now`. */
export function isOpen(day: string | null, timeZone: string, now: Date = new Date()): boolean {
  return day === null || dayIn(timeZone, now) >= day;
}

/**
 * The day a lesson opens for a customer whose course counts from `startDay`, while that day is
 * still ahead at `now`: the rule `can_read_lesson` enforces (a free preview is open to every
 * signed-in customer; a cohort lesson from its week, counted as `lesson_unlocks_at` counts it).
 * Null when the lesson is open now, or when there is no day to count from (the program is not on
 * the account, or the access has not arrived): then the lesson is no cohort's to lock.
 */
export function opensLater(
  lesson: Pick<OutlineLesson, "freePreview" | "unlockWeek">,
  startDay: string | null | undefined,
  timeZone: string,
  now: Date = new Date(),
): string | null {
  if (!startDay || lesson.freePreview) return null;
  const day = unlockDay(startDay, lesson.unlockWeek);
  return isOpen(day, timeZone, now) ? null : day;
}

/** What a locked lesson says, wherever it is listed: "Opens Monday, January 11, 2027". */
export const opensLabel = (day: string) => `Opens ${formatDay(day)}`;

/** The lesson before and after `id` in course order (across modules). */
export function neighbours(lessons: readonly OutlineLesson[], id: string) {
  const at = lessons.findIndex((l) => l.id === id);
  return { previous: at > 0 ? lessons[at - 1]! : null, next: at >= 0 ? (lessons[at + 1] ?? null) : null };
}

/**
 * Whether the customer is waiting for a payment for the program to settle (a bank debit): a pending
 * order for it. Such a customer is told the course opens when it does, not offered it again.
 */
export function paymentPending(
  orders: readonly { product_key: string | null; order_status: string | null }[],
  checkoutKey: string,
): boolean {
  const key = checkoutKey.toUpperCase();
  return orders.some((o) => o.order_status === "pending" && o.product_key?.trim().toUpperCase() === key);
}

/** How often, in seconds of playback, the player saves a video's position. */
export const SAVE_POSITION_EVERY = 10;

/**
 * Where a video should resume: the saved position, unless it is within the last few seconds (the
 * customer watched to the end: start again).
 */
export function resumeAt(position: number, duration: number | null): number {
  if (!Number.isFinite(position) || position <= 0) return 0;
  if (duration !== null && duration > 0 && position >= duration - 5) return 0;
  return Math.floor(position);
}
