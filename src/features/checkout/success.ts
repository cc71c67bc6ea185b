/**
 * The success page's reading of its Checkout Session (src/pages/checkout/success.astro): asks the
 * `checkout-status` function (functions/checkout-status/handler.ts) where the payment stands and
 * turns the answer into the view to show. Pure apart from `fetchStatus`, so the rules are unit
 * tested: a payment still processing is never called successful, and one that failed says so.
 */
import type { CheckoutStatus } from "@advisor-accelerator/shared/checkout-status.ts";
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
  facts.push(["Order reference", status.reference]);
  return {
    state,
    facts,
    fields: { program: status.program.name, amount, email: status.email ?? "the address you gave" },
    checkout: `/checkout/${status.program.key}`,
    course: status.program.course,
  };
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
