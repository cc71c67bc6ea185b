/**
 * The success page's reading of its Checkout Session (src/pages/checkout/success.astro): asks the
 * `checkout-status` function (functions/checkout-status/handler.ts) where the payment stands and
 * turns the answer into the view to show. Pure apart from `fetchStatus` and `orderIdOf`, so the
 * rules are unit tested: a payment still processing is never called successful, one that failed
 * says so, and a returning buyer is not asked to set a password.
 */
import type { CheckoutStatus } from "@advisor-accelerator/shared/checkout-status.ts";
import { orderReference } from "@advisor-accelerator/shared/order-reference.ts";
import type { PersistedUser } from "~/features/auth/persisted-session";
import { rushWaitOf } from "./logic";
import { formatDay } from "@advisor-accelerator/shared/cohort.ts";
import { formatCents } from "@advisor-accelerator/shared/money.ts";

/**
 * Which part of the page to show: the spec's paid page; processing (a bank debit clearing);
 * failed; incomplete (open or expired: nothing was paid); unknown (the status could not be read:
 * the order ID and what to expect, without claiming success); checking (still asking).
 */
export type SuccessState = "checking" | "paid" | "processing" | "failed" | "incomplete" | "unknown";

export interface SuccessView {
  state: SuccessState;
  /** The order's facts, as label and value, in the order shown. */
  facts: [string, string][];
  /** Text to fill in, by `data-field` name. */
  fields: Record<string, string>;
  /** Where "try again" leads: the program's checkout. */
  checkout: string | null;
  /** The program's course in the member area. */
  course: string | null;
}

export function successView(status: CheckoutStatus | null, failedToRead: boolean): SuccessView {
  if (!status)
    return { state: failedToRead ? "unknown" : "checking", facts: [], fields: {}, checkout: null, course: null };
  const state: SuccessState = status.state === "open" || status.state === "expired" ? "incomplete" : status.state;
  const amount = formatCents(status.amountCents, status.currency);
  const facts: [string, string][] = [
    ["Program", status.program.name],
    // A cohort program's buyer learns their cohort's first day here too, as before the payment.
    ...(status.cohortStart && state !== "failed" && state !== "incomplete"
      ? [["Your cohort starts", formatDay(status.cohortStart)] as [string, string]]
      : []),
    [state === "paid" ? "Amount paid" : "Amount", amount],
  ];
  if (status.email) facts.push([state === "paid" ? "Receipt and access sent to" : "E-mail", status.email]);
  // The order reference is the page's Order ID, shown once, apart from these facts.
  return {
    state,
    facts,
    fields: { program: status.program.name, amount, email: status.email ?? "the address you gave" },
    checkout: `/checkout/${status.program.key}`,
    course: status.program.course,
  };
}

/**
 * Who is signed in on this device (`raw`: the session supabase-js persisted), by the header's
 * account button's rule (userFromPersistedSession in src/features/auth/persisted-session.ts): a
 * user, and a refresh token or an access token not yet expired. Read here, not imported from
 * there: a module this page's script shared with the button's would become a chunk of its own,
 * and the button's script, on every page, an external module instead of an inline one.
 * ./success.test.ts holds the two readings together.
 */
export function signedInUser(raw: string | null, nowSeconds = Date.now() / 1000): PersistedUser | null {
  try {
    const { user, refresh_token: refresh, expires_at: expires } = JSON.parse(raw!) as Record<string, unknown>;
    const { id, email } = (user ?? {}) as { id?: unknown; email?: unknown };
    const usable =
      (typeof refresh === "string" && refresh !== "") || (typeof expires === "number" && expires > nowSeconds);
    if (typeof id !== "string" || !id || !usable) return null;
    return { id, email: typeof email === "string" ? email : undefined };
  } catch {
    // Nothing stored (JSON.parse(null) is null), or not JSON: nobody is signed in.
    return null;
  }
}

/** The persisted session under `key`, sessionStorage first (Remember me unchecked), as supabase-js reads it. */
export function storedSession(key: string): string | null {
  try {
    return sessionStorage.getItem(key) ?? localStorage.getItem(key);
  } catch {
    // Storage blocked (privacy mode): nobody can be signed in on this device.
    return null;
  }
}

/**
 * Which next steps the paid page shows: "returning" (open your course; nothing to set up) to a
 * buyer whose account is in use (checkout-status says so) or who is signed in on this device as
 * the buyer (an address the function does not know yet counts as theirs: a signed-in checkout is
 * in the customer's own name); "new" (set your password, hedged for a client) to everyone else,
 * and whenever the page cannot tell.
 */
export function nextStepsFor(status: CheckoutStatus | null, user: PersistedUser | null): "new" | "returning" {
  if (status?.accountInUse === true) return "returning";
  if (!user) return "new";
  const buyer = status?.email?.toLowerCase();
  return !buyer || !user.email || user.email.toLowerCase() === buyer ? "returning" : "new";
}

/**
 * The Order ID the page shows for `sessionId`: its order reference ("3F9A27C1"), the one the
 * e-mails, purchase history and the team's tools use, computed here so that it shows before (and
 * without) checkout-status's answer. Where the browser has no Web Crypto (a page not served over
 * HTTPS), the session id itself, which the function's `reference` replaces when it answers.
 */
export async function orderIdOf(sessionId: string): Promise<string> {
  try {
    return await orderReference(sessionId);
  } catch {
    return sessionId;
  }
}

/** How often, and how many times, a page showing a processing payment asks again. */
export const POLL_MS = 10_000;
export const POLL_TIMES = 60;

/**
 * The status of `sessionId`, or null when the function cannot say (network, 4xx, 5xx). Many buyers
 * back from Stripe at the same second (a launch) may meet the function's shared ceiling
 * (functions/checkout-status/handler.ts LIMITS): a short wait is sat out once, as the checkout does.
 */
export async function fetchStatus(
  functionsUrl: string,
  sessionId: string,
  sleep = (seconds: number) => new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000)),
): Promise<CheckoutStatus | null> {
  const url = new URL(`${functionsUrl}/checkout-status`);
  url.searchParams.set("session_id", sessionId);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const response = await fetch(url, { cache: "no-store" });
      // The body is read either way: one left unread keeps the request open in the browser.
      const body: unknown = await response.json();
      const wait = attempt === 0 ? rushWaitOf(response.status, body) : null;
      if (wait === null) return response.ok ? (body as CheckoutStatus) : null;
      await sleep(wait);
    } catch {
      return null;
    }
  }
  return null;
}
