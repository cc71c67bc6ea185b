/**
 * The offer page's rules (docs/coached-offers.md): the token from the address, the call to the
 * `offer` function (functions/offer/handler.ts) and what its answer shows. Pure but for `askOffer`,
 * which takes its `fetch`, so the tests drive it with answers of every kind.
 */
import type { OfferPayment, PaymentOption } from "@advisor-accelerator/shared/offer-options.ts";
import { type Payment, planSchedule } from "@advisor-accelerator/shared/payment-schedule.ts";
import { formatCents } from "@advisor-accelerator/shared/money.ts";

/** The offer as the function answers it (functions/offer/handler.ts `OfferView`). */
export interface OfferView {
  name: string;
  program: { name: string; includes: string[] };
  cohortStart: string | null;
  priceCents: number;
  payment: OfferPayment;
  expiresAt: string;
  today: string;
}

/** The link's token: the address's last part, `/offer/<43 characters of base64url>`. */
export function tokenOf(pathname: string): string | null {
  return /^\/offer\/([A-Za-z0-9_-]{43})\/?$/.exec(pathname)?.[1] ?? null;
}

/** What the page shows after asking: the offer, a checkout to go to, or why not. */
export type Answer =
  | { kind: "offer"; offer: OfferView }
  | { kind: "checkout"; url: string }
  | { kind: "closed"; code: "paid" | "withdrawn" | "expired" | "not_found" | "cohort_closed"; message: string }
  | { kind: "failed"; message: string };

const CLOSED = new Set(["paid", "withdrawn", "expired", "not_found", "cohort_closed"]);

/** Asks the function for the offer (no `option`) or a checkout for one of its ways to pay. */
export async function askOffer(
  functionsUrl: string,
  token: string,
  option?: string,
  send: typeof fetch = fetch,
): Promise<Answer> {
  let response: Response;
  try {
    response = await send(`${functionsUrl}/offer`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(option ? { token, option } : { token }),
      cache: "no-store",
    });
  } catch {
    return { kind: "failed", message: "Your offer could not be reached. Check your connection and try again." };
  }
  const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  if (response.ok && typeof body?.url === "string") return { kind: "checkout", url: body.url };
  if (response.ok && body && typeof body.name === "string")
    return { kind: "offer", offer: body as unknown as OfferView };
  if (typeof body?.code === "string" && CLOSED.has(body.code) && typeof body.error === "string") {
    return { kind: "closed", code: body.code as Extract<Answer, { kind: "closed" }>["code"], message: body.error };
  }
  if (response.status === 429) {
    return { kind: "failed", message: "Too many tries from this connection. Please wait a few minutes and try again." };
  }
  return {
    kind: "failed",
    message: typeof body?.error === "string" ? body.error : "Your offer could not be opened. Please try again.",
  };
}

/** The offer the address's link opens: asked of the function, or not valid without asking when the link is cut short. */
export function openOffer(functionsUrl: string, pathname: string, send: typeof fetch = fetch): Promise<Answer> {
  const token = tokenOf(pathname);
  if (!token) {
    return Promise.resolve({
      kind: "closed",
      code: "not_found",
      message:
        "This offer link is not valid. Check that the whole link from the e-mail was opened, or reply to the e-mail and we will send a new one.",
    });
  }
  return askOffer(functionsUrl, token, undefined, send);
}

/** The option's value as the function takes it: `in_full`, or `plan:<its index among the options>`. */
export function optionValue(payment: OfferPayment, option: PaymentOption): string {
  return option.kind === "in_full" ? "in_full" : `plan:${payment.options.indexOf(option)}`;
}

/** An option's payments in dates and amounts, the first on `today` (the day it is paid). */
export function scheduleOf(option: PaymentOption, today: string): Payment[] {
  return option.kind === "in_full"
    ? [{ day: today, amountCents: option.amountCents }]
    : planSchedule(option.instalmentsCents, today);
}

/** The option's button: "Pay $35,000" or "Start the plan: $6,000 today". */
export function optionButton(option: PaymentOption): string {
  return option.kind === "in_full"
    ? `Pay ${formatCents(option.amountCents)}`
    : `Start the plan: ${formatCents(option.instalmentsCents[0]!)} today`;
}

/** The option's heading: "In one payment" or the plan's name. */
export function optionHeading(option: PaymentOption): string {
  return option.kind === "in_full" ? "In one payment" : option.name;
}

/** What a plan comes to: "$36,000 in all, including a $1,000 plan fee." */
export function planTotal(option: Extract<PaymentOption, { kind: "plan" }>): string {
  const total = option.instalmentsCents.reduce((sum, amount) => sum + amount, 0);
  return `${formatCents(total)} in all${option.feeCents ? `, including a ${formatCents(option.feeCents)} plan fee` : ""}.`;
}
