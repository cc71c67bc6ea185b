/**
 * The checkout page's rules (docs/product.md, Screens and routes: Checkout, Validation rules, Messages and errors), pure so that they are unit
 * tested: what a program carries into the page, which program an address names, where Back goes,
 * the spec's texts, whether the customer already owns the program, and the record of a checkout
 * that left for Stripe (what a cancel brings back). The few browser helpers beside them only
 * read and write sessionStorage.
 */
import { findByCheckoutKey, normaliseKey } from "../../lib/catalogue";
import { type Cohort, cohortAt, formatDay } from "@advisor-accelerator/shared/cohort.ts";
import { courseHref } from "../course/logic";

/** What the checkout island needs of a program (content/programs/*.yaml), and nothing more. */
export interface CheckoutProgram {
  name: string;
  checkoutKey: string;
  priceCents: number;
  stripeLookupKey: string;
  image: string;
  imageAlt: string;
  description: string;
  /** The program's page: where Back leads a buyer who did not come from this site. */
  page: string;
  /** The program's course in the member area (/portal/courses/<program id>): where an owner opens it. */
  course: string;
  /** What the buyer keeps (content/programs `access`): the second of the checkout's notes. */
  access: string;
  /** The program's consultation page: where the coached offer's link and "Ask about the next cohort" lead. */
  applyPage: string;
  /**
   * A cohort program's start days (content/programs `cohort.starts`) and the business's time zone,
   * from which the page names the buyer's cohort (packages/shared/cohort.ts, the rule the checkout
   * function sells by); `sample` while the days are placeholders. Null for a self-paced program.
   */
  cohort: { starts: string[]; timeZone: string; sample: boolean } | null;
  /** The line that names the program's coached offer, its price filled in, and its link's words; null without one. */
  coached: { text: string; apply: string } | null;
}

/** A program as content/programs/ has it: its file name is its id, which names its course. */
export type CheckoutSource = Omit<CheckoutProgram, "course" | "cohort" | "coached"> & {
  id: string;
  cohort?: { starts: string[]; sample: boolean };
};

/** What the page knows beside the program: the business's time zone and the program's coached offer. */
export interface CheckoutContext {
  timeZone: string;
  coached: CheckoutProgram["coached"];
}

/** The island's props carry these fields only, so a program's other content does not ship to the browser. */
export function checkoutProgram(program: CheckoutSource, context: CheckoutContext): CheckoutProgram {
  const { name, checkoutKey, priceCents, stripeLookupKey, image, imageAlt, description, page, access, applyPage } =
    program;
  return {
    name,
    checkoutKey,
    priceCents,
    stripeLookupKey,
    image,
    imageAlt,
    description,
    page,
    course: courseHref(program.id),
    access,
    applyPage,
    cohort: program.cohort
      ? { starts: program.cohort.starts, timeZone: context.timeZone, sample: program.cohort.sample }
      : null,
    coached: context.coached,
  };
}

/** The checkout's words about a cohort (content/shared-copy.yaml `cohort`): {date} is filled in by the page. */
export interface CohortCopy {
  checkout: { next: string; started: string };
  closed: string;
  ask: string;
}

/**
 * The checkout's first note for `program` on `day`'s cohort: "Instant access after payment" for a
 * self-paced program; for a cohort program, when the buyer's cohort starts (or started), and the
 * cohort; null when no cohort is open to join (the program cannot be bought).
 */
export function accessNote(
  program: Pick<CheckoutProgram, "cohort">,
  copy: CohortCopy,
  at: Date,
): { text: string; sample: boolean; cohort: Cohort | null } | null {
  if (!program.cohort) return { text: INSTANT_ACCESS, sample: false, cohort: null };
  const cohort = cohortAt(program.cohort.starts, program.cohort.timeZone, at);
  if (!cohort) return null;
  const text = cohort.started ? copy.checkout.started : copy.checkout.next;
  return { text: text.replace("{date}", formatDay(cohort.start)), sample: program.cohort.sample, cohort };
}

/** The spec's note of a program that opens at once (docs/product.md, Checkout). */
export const INSTANT_ACCESS = "Instant access after payment";

/** The spec's message when the checkout cannot start (docs/product.md, Messages and errors). */
export const CHECKOUT_ERROR = "There was an error processing your request. Please try again.";

/** What the page says, calmly, to a buyer back from Stripe's page without paying. */
export const CANCELLED_NOTICE =
  "Payment cancelled. You have not been charged. Your details are kept below whenever you are ready.";

/**
 * The page the static host serves for every /checkout/<key> that is not a built page
 * (public/_redirects). Its name has a hyphen, which no checkout key may have (src/schemas/content.ts).
 */
export const SHELL_PATH = "/checkout/key-lookup";

/** The product key of a checkout address, as typed (still %-encoded): `/checkout/growth_mindset%20` -> `growth_mindset%20`. */
export function keyFromPath(pathname: string): string | null {
  const match = /^\/checkout\/([^/]+)\/?$/.exec(pathname);
  return match ? match[1]! : null;
}

/** The program a checkout address names (trimmed, case-insensitive, %-decoded: src/lib/catalogue.ts), or undefined. */
export function programAt<T extends CheckoutProgram>(programs: readonly T[], pathname: string): T | undefined {
  return findByCheckoutKey(programs, keyFromPath(pathname));
}

/**
 * Whether Back should return to the previous page instead of following its link to the program's
 * page: only when the buyer came from a page of this site in this tab, so Back never leaves the
 * site (a search result, an e-mail, Stripe's page after a cancel) or does nothing (a new tab).
 */
export function returnsToPreviousPage(referrer: string, origin: string, historyLength: number): boolean {
  if (historyLength < 2 || !referrer) return false;
  try {
    return new URL(referrer).origin === origin;
  } catch {
    return false;
  }
}

/**
 * The visit's first touch, as the script every page runs recorded it (src/scripts/visit.ts), read
 * from its JSON (checkoutRequest keeps only the fields it knows). Read here rather than through
 * src/lib/attribution.ts: a module shared with this island would be split into a chunk of its
 * own, and the visit script would no longer be inlined on every page.
 */
export function parseAttribution(raw: string | null): Record<string, string> | null {
  if (!raw) return null;
  try {
    const value: unknown = JSON.parse(raw);
    if (!value || typeof value !== "object" || Array.isArray(value)) return null;
    return Object.fromEntries(
      Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  } catch {
    return null;
  }
}

/** The browser's recorded first touch under `key` (sessionStorage), or null when none or storage is blocked. */
export function visitAttribution(key: string): Record<string, string> | null {
  try {
    return parseAttribution(window.sessionStorage.getItem(key));
  } catch {
    return null;
  }
}

/** Whether supabase-js has a session stored under `key` (it reads sessionStorage first, then localStorage). */
export function hasStoredSession(key: string): boolean {
  try {
    return (window.sessionStorage.getItem(key) ?? window.localStorage.getItem(key)) !== null;
  } catch {
    // Storage blocked (privacy mode): nobody can be signed in on this device.
    return false;
  }
}

// Already bought ----------------------------------------------------------------------------------

/**
 * Where the customer stands with a program: they own it (a completed order), their bank payment
 * for it is still clearing (a pending, unpaid order: a bank debit), or neither.
 */
export type Ownership = "owned" | "processing" | "none";

/**
 * The customer's own orders (the view stripe_user_orders) read with the rule the checkout
 * function refuses a second purchase by (`buyer_order_state`,
 * supabase/migrations/20261127000100_after_payment.sql): a completed order owns the program, a
 * pending and unpaid one is a payment clearing. A refunded, canceled or failed order is neither.
 */
export function ownership(
  orders: readonly { product_key: string | null; order_status: string | null; payment_status: string | null }[],
  checkoutKey: string,
): Ownership {
  const key = normaliseKey(checkoutKey);
  const mine = orders.filter((o) => o.product_key !== null && normaliseKey(o.product_key) === key);
  if (mine.some((o) => o.order_status === "completed")) return "owned";
  if (mine.some((o) => o.order_status === "pending" && o.payment_status === "unpaid")) return "processing";
  return "none";
}

/**
 * Why the checkout function refused the purchase: the address has an account, whose owner must sign
 * in to continue; the signed-in customer owns the program, or is paying for it; or no cohort of the
 * program is open to join.
 */
export type Refusal = "sign_in_required" | "already_owned" | "payment_processing" | "enrolment_closed";

const REFUSALS: readonly string[] = [
  "sign_in_required",
  "already_owned",
  "payment_processing",
  "enrolment_closed",
] satisfies Refusal[];

/**
 * The checkout function's refusal (HTTP 409 with `{ error, code }`: a second purchase, or a closed
 * enrolment; functions/stripe-checkout/handler.ts), or null for any other answer, which is a failure like
 * any other (docs/product.md, Messages and errors).
 */
export function refusalOf(status: number, body: unknown): Refusal | null {
  if (status !== 409 || !body || typeof body !== "object") return null;
  const code = (body as { code?: unknown }).code;
  return typeof code === "string" && REFUSALS.includes(code) ? (code as Refusal) : null;
}

/** The longest wait the page sits out by itself, once, when many buyers check out at the same moment. */
export const RUSH_WAIT_MAX_SECONDS = 3;

/**
 * How long to wait before trying the checkout once more by itself: for the checkout function's
 * 429 whose wait is short (the ceiling everyone shares, a second at a time, during a launch-day
 * rush: functions/stripe-checkout/handler.ts LIMITS), the seconds its body says; null for any
 * other answer, a longer wait included (one buyer's own limit), which fails as any other does.
 * The body, not `Retry-After`: a browser reads only the headers CORS exposes.
 */
export function rushWaitOf(status: number, body: unknown): number | null {
  if (status !== 429 || !body || typeof body !== "object") return null;
  const wait = (body as { retry_after?: unknown }).retry_after;
  return typeof wait === "number" && Number.isInteger(wait) && wait >= 1 && wait <= RUSH_WAIT_MAX_SECONDS ? wait : null;
}

// The checkout that left for Stripe -----------------------------------------------------------------

/**
 * Where the checkout page remembers, for this tab, the checkout that left for Stripe's page: when
 * the buyer comes back to it without paying (the hosted page's Back link is the spec's
 * cancel_url, docs/product.md, Calls, or the browser's Back button), the page finds the e-mail they
 * typed and says nothing was charged. The success page clears it (`clearPendingCheckout`).
 */
export const PENDING_CHECKOUT_STORAGE_KEY = "aa:pending-checkout";

/**
 * How long the record counts: a buyer back within a few hours is coming back from that checkout;
 * one who returns the next day is starting again. (Stripe keeps a Checkout Session open for 24 hours.)
 */
export const PENDING_CHECKOUT_TTL_MS = 3 * 60 * 60 * 1000;

export interface PendingCheckout {
  /** The program's checkout key, as the catalogue spells it. */
  key: string;
  email: string;
  /** When the buyer left for Stripe (ms since the epoch). */
  at: number;
}

/** The record for this program, read from its JSON, if it is one and not expired; else null. */
export function parsePendingCheckout(raw: string | null, checkoutKey: string, now: number): PendingCheckout | null {
  if (!raw) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!value || typeof value !== "object") return null;
  const { key, email, at } = value as Record<string, unknown>;
  if (typeof key !== "string" || typeof email !== "string" || typeof at !== "number") return null;
  if (normaliseKey(key) !== normaliseKey(checkoutKey)) return null;
  // A time ahead of now is a clock that moved: not to be trusted for hours either.
  if (!(at <= now && now - at < PENDING_CHECKOUT_TTL_MS)) return null;
  return { key, email, at };
}

/** Remembers, for this tab, the checkout about to leave for Stripe. Storage blocked: nothing is kept. */
export function rememberPendingCheckout(checkoutKey: string, email: string, now = Date.now()): void {
  const record: PendingCheckout = { key: checkoutKey, email, at: now };
  try {
    window.sessionStorage.setItem(PENDING_CHECKOUT_STORAGE_KEY, JSON.stringify(record));
  } catch {
    // A full or blocked storage: the page simply does not prefill after a cancel.
  }
}

/** The checkout of this program that left for Stripe from this tab, if any and recent. */
export function readPendingCheckout(checkoutKey: string, now = Date.now()): PendingCheckout | null {
  try {
    return parsePendingCheckout(window.sessionStorage.getItem(PENDING_CHECKOUT_STORAGE_KEY), checkoutKey, now);
  } catch {
    return null;
  }
}

/** Forgets the checkout that left for Stripe: on a new submit, and on the success page once paid. */
export function clearPendingCheckout(): void {
  try {
    window.sessionStorage.removeItem(PENDING_CHECKOUT_STORAGE_KEY);
  } catch {
    // Storage blocked: there is nothing to clear.
  }
}
