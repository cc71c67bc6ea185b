/**
 * The ways to pay a coached offer as it is sent (docs/coached-offers.md): what the sending function
 * stores with the offer (coached_offers.options), what the offer's e-mail and page list, and what
 * its checkout charges, from the offer's content (content/offers.yaml `payment`, through the
 * functions' catalogue) and the price the admin sends it at.
 *
 * At the content's price, each plan's instalments are the content's. At another price (a reason is
 * recorded with it), a plan keeps its length and fee and the new total is split in equal monthly
 * instalments, the odd cents on the first, so the instalments still come to the price plus the
 * fee. The membership, where the offer has one, is beside whichever option is chosen: its price a
 * month and its first charge, the content's months after the cohort's start.
 */
import { membershipStart } from "./payment-schedule.ts";

/** One way to pay the offer's price. */
export type PaymentOption =
  | { kind: "in_full"; amountCents: number }
  | { kind: "plan"; name: string; instalmentsCents: number[]; feeCents: number };

/** What an offer is sent with: its options, the membership beside them, and the terms. */
export interface OfferPayment {
  options: PaymentOption[];
  /** The monthly membership and its first charge's day; null without one. */
  membership: { monthlyCents: number; startsOn: string } | null;
  terms: string;
  /** Sent while content still marked its plans, membership start or terms sample: the page and e-mail say so. */
  sample?: true;
}

/** What content says an offer costs and how it can be paid (functions/_shared/catalogue.ts `CatalogueOffer`). */
export interface OfferContent {
  priceCents: number;
  monthlyPriceCents: number | null;
  payment: {
    inFull: boolean;
    plans: readonly { name: string; instalmentsCents: readonly number[]; feeCents: number }[];
    membership: { startsAfterMonths: number } | null;
    terms: string;
    /** Whether content marks any of it sample (`sample: true`): not the business's own yet. */
    sample: boolean;
  } | null;
}

/** `total` in `count` equal whole-cent parts, the odd cents on the first. */
export function splitEvenly(total: number, count: number): number[] {
  if (!Number.isInteger(total) || total <= 0 || !Number.isInteger(count) || count < 1) {
    throw new RangeError(`Cannot split ${total} cents in ${count}`);
  }
  const part = Math.floor(total / count);
  return Array.from({ length: count }, (_, i) => (i === 0 ? total - part * (count - 1) : part));
}

/**
 * The offer's payment as sent at `priceCents` to a seat in the cohort starting `cohortStart`
 * (null: a program without cohorts, whose membership, if it had one, could not be dated here).
 * Null when content does not sell the offer online yet.
 */
export function offerPayment(offer: OfferContent, priceCents: number, cohortStart: string | null): OfferPayment | null {
  const payment = offer.payment;
  if (!payment) return null;
  if (!Number.isInteger(priceCents) || priceCents <= 0) throw new RangeError(`Not a price: ${priceCents}`);
  const listed = priceCents === offer.priceCents;
  const options: PaymentOption[] = [
    ...(payment.inFull ? [{ kind: "in_full" as const, amountCents: priceCents }] : []),
    ...payment.plans.map((plan) => ({
      kind: "plan" as const,
      name: plan.name,
      instalmentsCents: listed
        ? [...plan.instalmentsCents]
        : splitEvenly(priceCents + plan.feeCents, plan.instalmentsCents.length),
      feeCents: plan.feeCents,
    })),
  ];
  const membership =
    payment.membership && offer.monthlyPriceCents !== null && cohortStart
      ? {
          monthlyCents: offer.monthlyPriceCents,
          startsOn: membershipStart(cohortStart, payment.membership.startsAfterMonths),
        }
      : null;
  return { options, membership, terms: payment.terms, ...(payment.sample ? { sample: true as const } : {}) };
}
