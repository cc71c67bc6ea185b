/**
 * The portal's pure logic (docs/product.md, Screens and routes: Portal, Entities and fields, States and transitions, Validation rules): what the dashboard, the
 * settings page and the purchase history show from the session's user, the orders and the
 * profile. No browser, no supabase-js: unit-tested in logic.test.ts.
 */
import type { OrderRow, ProfileRow } from "~/lib/database";
import { formatCents } from "@advisor-accelerator/shared/money.ts";
import { dayIn } from "@advisor-accelerator/shared/cohort.ts";
import { type Payment, planLines, readableDay } from "@advisor-accelerator/shared/payment-schedule.ts";
import { COURSES_PATH, isOpen, unlockDay } from "~/features/course/logic";

/** The facts of a program the portal's islands need, from content/programs/ (small props). */
export interface PortalProgram {
  /** The checkout key, e.g. GROWTH_MINDSET: what an order's product_key names. */
  key: string;
  name: string;
  /** The program's page, e.g. /programs/growth-mindset. */
  page: string;
  image: string;
  imageAlt: string;
  description: string;
  /** The program's course in the member area, e.g. /portal/courses/growth-mindset. */
  course: string;
  /** Its lessons, in course order. */
  lessons: PortalLesson[];
}

/** A lesson as the portal's islands know it: its id, and for a cohort lesson the week it opens. */
export interface PortalLesson {
  /** `<program>/<slug>`: the row's id in course_lessons and lesson_progress. */
  id: string;
  /** The cohort week it opens (1: the cohort's first day); absent when it opens with the purchase. */
  unlockWeek?: number;
}

/** An order's product name when its program is not in the catalogue (docs/product.md, Entities and fields). */
export const UNKNOWN_PRODUCT_NAME = "Course Purchase";

/** The part of an e-mail address before the @: the portal's welcome ("Welcome back, dana"). */
export function emailLocalPart(email: string | undefined | null): string {
  if (!email) return "";
  const at = email.lastIndexOf("@");
  return at < 0 ? email : email.slice(0, at);
}

/**
 * Whom the portal greets: the profile's first name when the customer has given their name (the
 * first word of `full_name`, or the whole name when that word is a title such as "Dr."), else the
 * spec's local part of the e-mail (docs/product.md, Screens and routes: Portal).
 */
export function greetingName(fullName: string | null | undefined, email: string | undefined | null): string {
  const name = fullName?.trim().replace(/\s+/g, " ") ?? "";
  if (!name) return emailLocalPart(email);
  const first = name.split(" ")[0]!;
  return first.length > 1 && !first.endsWith(".") ? first : name;
}

/**
 * The portal's address for a customer's first visit: where the set-password page sends a new
 * buyer once their password is set (src/features/auth/ResetPassword.tsx).
 *
 * A first visit is that arrival, and only that: the invite link is how every buyer's account
 * starts (the webhook creates it, docs/architecture.md, Decisions), so arriving from it is the one
 * moment we know is the first. Auth's sign-in times cannot tell it apart: verifying the link
 * signs in too, so by the time the portal loads, every visit has a sign-in just before it.
 */
export const FIRST_VISIT_PATH = "/portal?welcome=1";

/** Whether the portal's address says this is the customer's first visit (`?welcome=1`). */
export function isFirstVisit(search: string): boolean {
  return new URLSearchParams(search).get("welcome") === "1";
}

/** "Welcome, Dana" on a first visit, "Welcome back, Dana" after. */
export function welcomeHeading(name: string, firstVisit: boolean): string {
  const greeting = firstVisit ? "Welcome" : "Welcome back";
  return name ? `${greeting}, ${name}` : greeting;
}

/**
 * What a first visit says under the welcome: where the program they just bought is. The newest
 * program they own, which My Courses lists first; or the one whose bank payment is clearing;
 * or, with neither (an account made for another reason), just where programs appear.
 */
export function firstVisitNote(courses: {
  active: readonly CourseCard[];
  processing: readonly CourseCard[];
}): { kind: "ready" | "clearing"; course: CourseCard } | { kind: "none" } {
  const [ready] = courses.active;
  if (ready) return { kind: "ready", course: ready };
  const [clearing] = courses.processing;
  if (clearing) return { kind: "clearing", course: clearing };
  return { kind: "none" };
}

/** "October 2026": the month an account was created, in en-US; "" when unknown or invalid. */
export function memberSince(createdAt: string | undefined | null, timeZone?: string): string {
  if (!createdAt) return "";
  const date = new Date(createdAt);
  if (Number.isNaN(date.getTime())) return "";
  return new Intl.DateTimeFormat("en-US", { month: "long", year: "numeric", timeZone }).format(date);
}

/** "Nov 21, 2026": an order's date in en-US; "" when unknown or invalid. */
export function orderDate(iso: string | null | undefined, timeZone?: string): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric", timeZone }).format(date);
}

/** The program an order bought: its product_key matched trimmed and case-insensitively. */
export function programOf(programs: readonly PortalProgram[], productKey: string | null | undefined) {
  const wanted = productKey?.trim().toUpperCase();
  if (!wanted) return undefined;
  return programs.find((p) => p.key.toUpperCase() === wanted);
}

const isCompleted = (order: OrderRow) => order.order_status === "completed";

/** Whole cents of an order, or 0 when the view has none (it always has, but the type allows null). */
const centsOf = (order: OrderRow) => (Number.isInteger(order.amount_total) ? (order.amount_total as number) : 0);

export interface PortalStats {
  /** Programs with a completed order, each counted once. */
  programsOwned: number;
  /** The completed orders' totals, formatted in en-US from cents (formatCents). */
  totalInvested: string;
}

/**
 * The dashboard's first two stat tiles. Only completed orders count: a pending payment is not yet
 * an investment, and a refunded, canceled or failed one is none.
 */
export function portalStats(orders: readonly OrderRow[]): PortalStats {
  const completed = orders.filter(isCompleted);
  const keys = new Set(completed.map((o) => o.product_key?.trim().toUpperCase() || `order-${o.order_id}`));
  const cents = completed.reduce((sum, o) => sum + centsOf(o), 0);
  const currency = completed.find((o) => o.currency)?.currency ?? "usd";
  return { programsOwned: keys.size, totalInvested: formatCents(cents, currency) };
}

/** A card of My Courses: a program the customer owns (Active) or is paying for (Processing). */
export interface CourseCard {
  /** The program's checkout key, or the order's product key when the program is unknown. */
  key: string;
  name: string;
  /** The program's page; none for an unknown program. */
  page?: string;
  image?: string;
  imageAlt?: string;
  description?: string;
  /**
   * The program's course in the member area, and its lessons; none for an unknown program, nor for
   * a program whose access ended (refunded) or is paused (disputed): no way into the course.
   */
  course?: string;
  lessons?: PortalLesson[];
  /**
   * docs/product.md, States and transitions: completed shows 'Active', pending 'Processing'; a
   * program the customer had and has no longer, 'Refunded' or, while its payment is disputed,
   * 'Disputed'; a coached offer's plan 14 days past due, 'Paused' (docs/coached-offers.md).
   */
  status: "Active" | "Processing" | "Refunded" | "Disputed" | "Paused";
  /**
   * For a cohort program, the first day of the buyer's cohort (YYYY-MM-DD): the cohort of their
   * earliest completed order, the one the database counts their weeks from (program_start_date).
   */
  cohortStart?: string;
  /**
   * The earliest completed order's date (ISO): a self-paced course counts from its day, as
   * program_start_date does. Active cards only.
   */
  purchasedAt?: string;
  /**
   * When the program was refunded or its payment disputed (ISO): the order's status_changed_at; for
   * a paused plan, since when its payment is past due.
   */
  endedAt?: string;
}

/** What My Courses groups an order's program by: its product key, trimmed and upper case, or the order itself. */
const cardKey = (order: OrderRow) => order.product_key?.trim().toUpperCase() || `order-${order.order_id}`;

function card(programs: readonly PortalProgram[], order: OrderRow, status: CourseCard["status"]): CourseCard {
  const program = programOf(programs, order.product_key);
  const key = cardKey(order);
  if (!program) return { key, name: UNKNOWN_PRODUCT_NAME, status };
  const { name, page, image, imageAlt, description, course, lessons } = program;
  return { key, name, page, image, imageAlt, description, course, lessons, status };
}

/** My Courses, in its groups. */
export interface MyCourses {
  active: CourseCard[];
  processing: CourseCard[];
  /** Programs whose plan payment is 14 days past due: no way in until it is paid. */
  paused: CourseCard[];
  ended: CourseCard[];
}

/**
 * My Courses (docs/product.md, Screens and routes: Portal, States and transitions): each program with a completed order, once, in the
 * order of the list (newest order first), 'Active'. `processing`: the programs with a pending
 * order and no completed one, 'Processing', shown apart and without a link. `ended`: the programs
 * the customer had and no longer has, with neither a completed nor a pending order: refunded
 * ('Refunded'), or held by a payment dispute ('Disputed'), as their newest such order says, with
 * when; shown apart, without a way into the course. `paused`: a program whose only completed
 * orders are coached-offer plans paused for a payment 14 days past due ('Paused', since when it is
 * due), without a way in until it is paid (the database's rule, `plan_paused`). A canceled or
 * failed order is in none: the customer never had that program.
 */
export function myCourses(orders: readonly OrderRow[], programs: readonly PortalProgram[]): MyCourses {
  const active: CourseCard[] = [];
  const processing: CourseCard[] = [];
  const paused: CourseCard[] = [];
  const ended: CourseCard[] = [];
  const seen = new Set<string>();
  const completed = orders.filter((order) => isCompleted(order) && order.plan_paused !== true);
  for (const order of completed) {
    const course = card(programs, order, "Active");
    if (seen.has(course.key)) continue;
    seen.add(course.key);
    const earliest = completed
      .filter((o) => cardKey(o) === course.key)
      .reduce((a, b) => ((b.order_date ?? "") < (a.order_date ?? "") ? b : a));
    active.push({
      ...course,
      ...(earliest.cohort_start ? { cohortStart: earliest.cohort_start } : {}),
      ...(earliest.order_date ? { purchasedAt: earliest.order_date } : {}),
    });
  }
  for (const order of newestFirst(orders)) {
    if (!isCompleted(order) || order.plan_paused !== true) continue;
    const course = withoutCourse(card(programs, order, "Paused"));
    if (seen.has(course.key)) continue;
    seen.add(course.key);
    paused.push(order.plan_past_due_since ? { ...course, endedAt: order.plan_past_due_since } : course);
  }
  for (const order of orders) {
    if (order.order_status !== "pending") continue;
    const course = card(programs, order, "Processing");
    if (seen.has(course.key)) continue;
    seen.add(course.key);
    processing.push(course);
  }
  for (const order of newestFirst(orders)) {
    const status =
      order.order_status === "refunded" ? "Refunded" : order.order_status === "disputed" ? "Disputed" : null;
    if (!status) continue;
    const course = withoutCourse(card(programs, order, status));
    if (seen.has(course.key)) continue;
    seen.add(course.key);
    ended.push(order.status_changed_at ? { ...course, endedAt: order.status_changed_at } : course);
  }
  return { active, processing, paused, ended };
}

/** A card without its way into the course: its course and lessons left out. */
function withoutCourse({ course: _course, lessons: _lessons, ...card }: CourseCard): CourseCard {
  return card;
}

/** Whether the customer has, or ever had, a program on My Courses: else its empty state. */
export const hasAnyCourse = (courses: MyCourses) =>
  courses.active.length + courses.processing.length + courses.paused.length + courses.ended.length > 0;

/**
 * What an ended program's card says: what happened ("Refunded", "Payment disputed"), on which day
 * ("Dec 3, 2026", en-US like purchase history; "" when unknown) and what became of the access:
 * "Refunded on Dec 3, 2026 · access ended".
 */
export function endedNote(
  course: Pick<CourseCard, "status" | "endedAt">,
  timeZone?: string,
): { what: string; day: string; access: string } {
  const day = orderDate(course.endedAt, timeZone);
  if (course.status === "Paused") return { what: "Payment past due", day, access: "access paused until it is paid" };
  return course.status === "Disputed"
    ? { what: "Payment disputed", day, access: "access paused during the dispute" }
    : { what: "Refunded", day, access: "access ended" };
}

/** The id of a program's card on My Courses, which purchase history links to (`/portal#…`). */
export const courseAnchor = (key: string) => `program-${key.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;

/** Lessons done of `lessons`, counting the customer's rows marked completed. */
export function lessonsDone(
  lessons: readonly PortalLesson[],
  progress: readonly { lesson_id: string; completed: boolean }[],
): { done: number; total: number } {
  const completed = new Set(progress.filter((row) => row.completed).map((row) => row.lesson_id));
  return { done: lessons.filter((lesson) => completed.has(lesson.id)).length, total: lessons.length };
}

/** The dashboard's progress tile: lessons done across the programs the customer owns (active cards). */
export function portalProgress(
  active: readonly CourseCard[],
  progress: readonly { lesson_id: string; completed: boolean }[],
): { done: number; total: number } {
  return lessonsDone(
    active.flatMap((course) => course.lessons ?? []),
    progress,
  );
}

/**
 * Whether the customer has begun the course: a progress row for any of its lessons (a video
 * watched, a lesson marked done), as the course page's "Continue" counts it. Its card then says
 * "Continue course →", else "Start course →".
 */
export function courseStarted(lessons: readonly PortalLesson[], progress: readonly { lesson_id: string }[]): boolean {
  const ids = new Set(lessons.map((lesson) => lesson.id));
  return progress.some((row) => ids.has(row.lesson_id));
}

/** The "Lessons completed" tile: "3 of 18"; "0" while no program the customer owns has a lesson (never "0 of 0"). */
export const lessonsTile = ({ done, total }: { done: number; total: number }) =>
  total === 0 ? "0" : `${done} of ${total}`;

// Where a course card opens ------------------------------------------------------------------------

/** A progress row as the resume rule reads it (lesson_progress). */
export interface ResumeRow {
  lesson_id: string;
  completed: boolean;
  /** The last time the customer's progress in the lesson was written (the database's clock). */
  updated_at: string;
}

/**
 * The lesson to resume a course at, of `lessons` (in course order), or null when there is none to
 * take up (every lesson done, or the ones left not open yet).
 *
 * The database keeps no "last opened": a lesson's row is written when the customer watches its
 * video (its position, every few seconds) or marks it done, and `updated_at` says when. So the
 * lesson last worked in is the one whose row was written last; when that lesson is not done and
 * is open, that is where they stopped. Otherwise (it is done, or there is no row yet) the first
 * lesson in course order that is not done and is open (`isOpenNow`: a cohort lesson whose week
 * has not come is not).
 */
export function resumeLesson(
  lessons: readonly PortalLesson[],
  progress: readonly ResumeRow[],
  isOpenNow: (lesson: PortalLesson) => boolean,
): PortalLesson | null {
  const rows = new Map(progress.map((row) => [row.lesson_id, row]));
  const time = (row: ResumeRow) => {
    const t = Date.parse(row.updated_at);
    return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
  };
  let last: { lesson: PortalLesson; row: ResumeRow } | null = null;
  for (const lesson of lessons) {
    const row = rows.get(lesson.id);
    if (row && (!last || time(row) > time(last.row))) last = { lesson, row };
  }
  if (last && !last.row.completed && isOpenNow(last.lesson)) return last.lesson;
  return lessons.find((lesson) => !rows.get(lesson.id)?.completed && isOpenNow(lesson)) ?? null;
}

/** A lesson's page: `/portal/courses/<program>/<slug>`, from its id `<program>/<slug>`. */
export const portalLessonHref = (lesson: PortalLesson) => `${COURSES_PATH}/${lesson.id}`;

/**
 * The day a card's course counts from, as program_start_date says: the cohort's first day, else
 * the day of the earliest completed order in the business's time zone; null when unknown.
 */
export function courseStartDay(
  course: Pick<CourseCard, "cohortStart" | "purchasedAt">,
  timeZone: string,
): string | null {
  if (course.cohortStart) return course.cohortStart;
  const at = course.purchasedAt ? new Date(course.purchasedAt) : null;
  return at && !Number.isNaN(at.getTime()) ? dayIn(timeZone, at) : null;
}

/**
 * Where an active card of My Courses opens ("Start course →", "Continue course →"): the lesson to
 * resume (`resumeLesson`) once the customer's progress is known, else the course's outline (while
 * the progress loads, when it could not be loaded, and when every open lesson is done); the
 * program's page for a program without a course.
 */
export function courseLink(
  course: Pick<CourseCard, "course" | "page" | "lessons" | "cohortStart" | "purchasedAt">,
  progress: readonly ResumeRow[] | null,
  timeZone: string,
  now: Date = new Date(),
): string | undefined {
  if (!course.course) return course.page;
  if (!progress || !course.lessons) return course.course;
  const start = courseStartDay(course, timeZone);
  const open = (lesson: PortalLesson) =>
    lesson.unlockWeek === undefined || (start !== null && isOpen(unlockDay(start, lesson.unlockWeek), timeZone, now));
  const lesson = resumeLesson(course.lessons, progress, open);
  return lesson ? portalLessonHref(lesson) : course.course;
}

/** The colour of a purchase's status badge (docs/product.md, States and transitions). */
export type BadgeTone = "green" | "yellow" | "red" | "grey";

export interface StatusBadge {
  /** The capitalised status: 'Completed', 'Pending', 'Refunded'… */
  label: string;
  tone: BadgeTone;
}

/** "refunded" -> "Refunded"; an empty status is "Unknown". */
export function capitalise(status: string | null | undefined): string {
  const s = status?.trim() ?? "";
  return s ? s[0]!.toUpperCase() + s.slice(1).toLowerCase() : "Unknown";
}

/** Purchase history's badge: completed green, pending yellow, canceled red, anything else grey. */
export function statusBadge(status: string | null | undefined): StatusBadge {
  const key = status?.trim().toLowerCase();
  const tone: BadgeTone =
    key === "completed" ? "green" : key === "pending" ? "yellow" : key === "canceled" ? "red" : "grey";
  return { label: capitalise(status), tone };
}

/** An order as purchase history shows it (docs/product.md, Entities and fields, Order as shown). */
export interface PurchaseView {
  id: string;
  /**
   * What the customer quotes to the business: "3F9A27C1", 8 hex digits of the Checkout Session
   * id (the view's order_reference, functions/_shared/order-reference.ts); null when the view has none.
   */
  reference: string | null;
  productName: string;
  productImage?: string;
  productImageAlt?: string;
  /** ISO date of the order, for <time datetime>. */
  purchaseDate: string;
  /** "Nov 21, 2026". */
  purchaseDateText: string;
  /** "$15,000", from amount_total in cents. */
  amount: string;
  status: StatusBadge;
  /** Stripe's receipt page for the payment, when Stripe has one. */
  receiptUrl: string | null;
  /**
   * For a refunded or disputed order, when: "Refunded on" or "Payment disputed on", and the
   * day (ISO for <time>, and as text); null for any other.
   */
  change: { label: string; date: string; dateText: string } | null;
  /**
   * The program's card on My Courses (`/portal#program-…`), for an order that puts it there
   * (completed, pending, refunded, disputed); null for a canceled or failed one.
   */
  portalHref: string | null;
  /**
   * A coached offer's payment plan (docs/coached-offers.md): "2 of 6 paid, next $6,000 on March 1"
   * or "Paid in full", since when a payment is past due ("Past due since December 28"), and
   * whether access is paused for it; null for an order paid in one payment.
   */
  plan: { name: string; line: string; pastDue: string | null; paused: boolean } | null;
  /** The coached offer's monthly membership: "Membership: $450 a month from April 11, 2027", or its end; null without one. */
  membership: string | null;
}

/** An order reference as the view gives it: 8 hex digits, upper case; anything else is not shown. */
export function orderReference(value: string | null | undefined): string | null {
  const reference = value?.trim().toUpperCase() ?? "";
  return /^[0-9A-F]{8}$/.test(reference) ? reference : null;
}

/**
 * A receipt link the page may open: an http(s) address (the database checks the same,
 * supabase/migrations/20261127000100_after_payment.sql), so no other scheme ever becomes a link.
 */
export function receiptLink(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

export function purchaseView(order: OrderRow, programs: readonly PortalProgram[], timeZone?: string): PurchaseView {
  const program = programOf(programs, order.product_key);
  return {
    id: String(order.order_id ?? order.checkout_session_id ?? ""),
    reference: orderReference(order.order_reference),
    productName: program?.name ?? UNKNOWN_PRODUCT_NAME,
    productImage: program?.image,
    productImageAlt: program?.imageAlt,
    purchaseDate: order.order_date ?? "",
    purchaseDateText: orderDate(order.order_date, timeZone),
    amount: formatCents(centsOf(order), order.currency ?? "usd"),
    status: statusBadge(order.order_status),
    receiptUrl: receiptLink(order.receipt_url),
    change: statusChange(order, timeZone),
    portalHref: ON_MY_COURSES.has(order.order_status ?? "") ? `/portal#${courseAnchor(cardKey(order))}` : null,
    plan: planOf(order, timeZone),
    membership: membershipOf(order, timeZone),
  };
}

/** The membership's line for purchase history (PurchaseView `membership`). */
function membershipOf(order: OrderRow, timeZone?: string): string | null {
  const cents = order.membership_monthly_cents;
  const starts = order.membership_starts_on;
  if (!Number.isInteger(cents) || !starts) return null;
  const thisYear = new Date().getUTCFullYear();
  if (order.membership_ended_at) {
    return `Membership ended on ${readableDay(dayIn(timeZone ?? "UTC", new Date(order.membership_ended_at)), thisYear)}`;
  }
  const price = formatCents(cents as number, order.currency ?? "usd");
  return `Membership: ${price} a month from ${readableDay(starts, thisYear)}`;
}

/** The plan's lines for purchase history (PurchaseView `plan`), from the view's plan columns. */
function planOf(order: OrderRow, timeZone?: string): PurchaseView["plan"] {
  const payments = order.plan_payments;
  if (!order.plan_name || !Array.isArray(payments) || payments.length === 0) return null;
  const schedule = (payments as unknown as Payment[]).filter(
    (p) => typeof p?.day === "string" && Number.isInteger(p?.amountCents),
  );
  const thisYear = new Date().getUTCFullYear();
  const { line, pastDue } = planLines(
    schedule,
    order.plan_paid ?? 0,
    order.plan_past_due_since,
    timeZone ?? "UTC",
    thisYear,
  );
  return { name: order.plan_name, line, pastDue, paused: order.plan_paused === true };
}

/** The statuses whose order puts its program on My Courses (myCourses). */
const ON_MY_COURSES = new Set(["completed", "pending", "refunded", "disputed"]);

function statusChange(order: OrderRow, timeZone?: string): PurchaseView["change"] {
  const label =
    order.order_status === "refunded"
      ? "Refunded on"
      : order.order_status === "disputed"
        ? "Payment disputed on"
        : null;
  const dateText = orderDate(order.status_changed_at, timeZone);
  return label && dateText ? { label, date: order.status_changed_at!, dateText } : null;
}

/** Orders newest first (the query orders them; this keeps the list right if it ever did not). */
export function newestFirst(orders: readonly OrderRow[]): OrderRow[] {
  const time = (o: OrderRow) => (o.order_date ? Date.parse(o.order_date) : Number.NEGATIVE_INFINITY);
  return [...orders].sort((a, b) => time(b) - time(a));
}

/** Where a signed-out visitor of a portal page goes: /login, with the page to return to. */
export function loginRedirect(pathname: string, search = ""): string {
  return `/login?next=${encodeURIComponent(pathname + search)}`;
}

// Avatars (docs/product.md, Validation rules) -------------------------------------------------------------------

/** The avatar types the page and the bucket accept, with the extension each is stored under. */
export const AVATAR_TYPES: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
};

/** The bucket's limit (supabase/config.toml, the avatars migration): 2 MiB. */
export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;

export const AVATAR_TYPE_MESSAGE = "Please choose a PNG, JPEG or WebP image.";
export const AVATAR_SIZE_MESSAGE = "The image must be 2 MB or smaller.";
export const AVATAR_EMPTY_MESSAGE = "The file is empty.";

/** A file the page may upload, with its extension, or why not. */
export function checkAvatar(file: {
  type: string;
  size: number;
}): { ok: true; ext: string; contentType: string } | { ok: false; message: string } {
  const contentType = file.type.toLowerCase();
  const ext = AVATAR_TYPES[contentType];
  if (!ext) return { ok: false, message: AVATAR_TYPE_MESSAGE };
  if (file.size === 0) return { ok: false, message: AVATAR_EMPTY_MESSAGE };
  if (file.size > AVATAR_MAX_BYTES) return { ok: false, message: AVATAR_SIZE_MESSAGE };
  return { ok: true, ext, contentType };
}

/** Where a user's avatar lives in the bucket: `{userId}/{userId}.{ext}`. */
export function avatarPath(userId: string, ext: string): string {
  return `${userId}/${userId}.${ext}`;
}

/** The extensions an avatar may have in its URL: what the page stores, and `jpeg`, which the database allows too. */
const AVATAR_URL_EXTENSIONS = [...new Set([...Object.values(AVATAR_TYPES), "jpeg"])];

/** What may follow the file name: the version `versionedUrl` adds, within what the database allows. */
const AVATAR_URL_QUERY = /^(\?[A-Za-z0-9=&._-]{0,100})?$/;

/**
 * `url` when it is the user's own avatar in this site's Supabase project, else null. `publicUrlOf`
 * is the project's storage (supabase-js `storage.from("avatars").getPublicUrl`): the hosted
 * project's in a production build, the local stack's in a local one. The database takes any
 * Supabase project's, or this machine's (the profiles_avatar_url_is_own_avatar check,
 * supabase/migrations/20261123000100_hardening.sql), and a customer can write their own row
 * through the API: so a localhost address or another project's never reaches an <img> of a
 * production page, where it would ask the visitor's own machine, or a stranger's server, for it.
 */
export function ownAvatarUrl(
  url: string | null | undefined,
  userId: string,
  publicUrlOf: (path: string) => string,
): string | null {
  if (!url) return null;
  const query = url.indexOf("?");
  const base = query === -1 ? url : url.slice(0, query);
  if (!AVATAR_URL_QUERY.test(query === -1 ? "" : url.slice(query))) return null;
  return AVATAR_URL_EXTENSIONS.some((ext) => publicUrlOf(avatarPath(userId, ext)) === base) ? url : null;
}

/**
 * The public URL with a version, so the browser fetches the new picture at once: the database
 * allows `?[A-Za-z0-9=&._-]{0,100}` after the file name.
 */
export function versionedUrl(publicUrl: string, version: number): string {
  const base = publicUrl.split("?")[0]!;
  return `${base}?v=${Math.trunc(version)}`;
}

// The contact form ---------------------------------------------------------------------------------

/** The profile's columns the contact form edits; the e-mail is the account's, updated_at the database's. */
export const CONTACT_FIELDS = ["full_name", "address", "address_2", "city", "state", "country", "zip"] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];
export type ContactFields = Record<ContactField, string | null>;

/** Each field's length limit, as the profiles table checks it. */
export const CONTACT_MAX_LENGTH: Readonly<Record<ContactField, number>> = {
  full_name: 200,
  address: 200,
  address_2: 200,
  city: 100,
  state: 100,
  country: 100,
  zip: 20,
};

/** The form's values from a profile (empty strings for what it lacks). */
export function contactValues(profile: Partial<ProfileRow> | null | undefined): Record<ContactField, string> {
  return Object.fromEntries(CONTACT_FIELDS.map((f) => [f, profile?.[f] ?? ""])) as Record<ContactField, string>;
}

/** What the form saves: each field trimmed, an empty one as null. */
export function contactFields(values: Partial<Record<ContactField, string | null | undefined>>): ContactFields {
  return Object.fromEntries(
    CONTACT_FIELDS.map((f) => {
      const value = values[f]?.trim() ?? "";
      return [f, value === "" ? null : value];
    }),
  ) as ContactFields;
}

/** The status region's messages (docs/product.md, Messages and errors), with the backend's message where it has one. */
export const MESSAGES = {
  profileSaved: "Profile updated successfully!",
  profileError: (message: string) => `Error updating profile: ${message}`,
  avatarSaved: "Avatar updated successfully!",
  avatarError: (message: string) => `Error uploading avatar: ${message}`,
} as const;
