/**
 * Sending a coached offer (docs/coached-offers.md), the part that needs no network: checking what
 * an admin asks for against the catalogue, and making the offer's single-use link. The function
 * that sends it (next in docs/coached-offers.md) reads the lead, stores `row` and e-mails the link.
 *
 * The link's token is 32 random bytes, base64url (43 characters): unguessable. The database keeps
 * only its SHA-256 (coached_offers.token_hash), so a copy of the database opens no offer; the
 * offer's page sends the token, and the function finds the offer by its hash.
 */
import { openCohorts } from "../../packages/shared/cohort.ts";
import { offerPayment, type OfferPayment, type PaymentOption } from "../../packages/shared/offer-options.ts";
import type { CatalogueOffer, CatalogueProduct } from "./catalogue.ts";
import { sha256Hex } from "./digest.ts";

/** How long an offer's link works unless the admin says otherwise, and the most it may. */
export const DEFAULT_EXPIRY_DAYS = 7;
export const MAX_EXPIRY_DAYS = 30;

/** What an admin asks for on the desk. */
export interface OfferRequest {
  offer: string;
  /** The cohort's start day (YYYY-MM-DD) for a cohort program; absent for a self-paced one. */
  cohortStart?: string | null;
  /** Another price than the content's, in cents, with its reason. */
  priceCents?: number | null;
  priceReason?: string | null;
  expiresInDays?: number | null;
}

/** A request the catalogue refuses: what is wrong, and the field the desk marks. */
export class OfferError extends Error {
  readonly field: string;
  constructor(message: string, field: string) {
    super(message);
    this.name = "OfferError";
    this.field = field;
  }
}

/** What the sending function stores (beside the lead, the applicant, the token's hash and who sent it). */
export interface PreparedOffer {
  offer_key: string;
  product_key: string;
  cohort_start: string | null;
  list_price_cents: number;
  price_cents: number;
  price_reason: string | null;
  payment: OfferPayment;
  expires_at: string;
}

/**
 * The offer `request` asks for, checked against the catalogue on `today` (YYYY-MM-DD, in the
 * business's time zone) at `now`: an offer content sells online, a cohort a buyer could join on
 * that day or a later one of the program's, a whole positive price whose reason is given when it
 * is not the content's, and an expiry of 1 to MAX_EXPIRY_DAYS days. Throws OfferError naming the
 * field otherwise.
 */
export function prepareOffer(
  request: OfferRequest,
  catalogue: { offers: readonly CatalogueOffer[]; products: readonly CatalogueProduct[] },
  today: string,
  now: Date,
  /**
   * Whether an offer whose plans, membership start or terms content still marks sample may be
   * sent: on the local stack and staging (ALLOW_SAMPLE_CONTENT=1), as their builds publish sample
   * content, labelled; never in production, as its build publishes none.
   */
  allowSamples = false,
): PreparedOffer {
  const offer = catalogue.offers.find((o) => o.id === request.offer);
  if (!offer) throw new OfferError(`There is no coached offer "${request.offer}".`, "offer");
  const product = catalogue.products.find((p) => p.key === offer.productKey);
  if (!product) throw new OfferError(`The offer's program ${offer.productKey} is not sold.`, "offer");
  if (!offer.payment) throw new OfferError(`${offer.name}'s offer has no way to pay in content yet.`, "offer");
  if (offer.payment.sample && !allowSamples) {
    throw new OfferError(
      `${offer.name}'s payment plans, membership start or terms in content/offers.yaml are still sample content: set the business's own and remove their \`sample: true\` first.`,
      "offer",
    );
  }

  let cohortStart: string | null = null;
  if (product.cohortStarts.length > 0) {
    const asked = request.cohortStart ?? "";
    const open = openCohorts(product.cohortStarts, today);
    if (!open.includes(asked)) {
      throw new OfferError(
        open.length
          ? `Choose the cohort the offer holds a seat in: ${open.join(", ")}.`
          : `${product.name} has no cohort open to join; add one in content first.`,
        "cohortStart",
      );
    }
    cohortStart = asked;
  } else if (request.cohortStart) {
    throw new OfferError(`${product.name} has no cohorts.`, "cohortStart");
  }

  const priceCents = request.priceCents ?? offer.priceCents;
  if (!Number.isInteger(priceCents) || priceCents <= 0) {
    throw new OfferError("The price must be a whole number of cents above 0.", "priceCents");
  }
  const reason = request.priceReason?.trim() || null;
  if (priceCents !== offer.priceCents && !reason) {
    throw new OfferError("Say why the offer is at another price than the program's offer.", "priceReason");
  }
  if (reason && reason.length > 500) throw new OfferError("The reason is at most 500 characters.", "priceReason");

  const days = request.expiresInDays ?? DEFAULT_EXPIRY_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_EXPIRY_DAYS) {
    throw new OfferError(`The link works for 1 to ${MAX_EXPIRY_DAYS} days.`, "expiresInDays");
  }

  return {
    offer_key: offer.id,
    product_key: offer.productKey,
    cohort_start: cohortStart,
    list_price_cents: offer.priceCents,
    price_cents: priceCents,
    price_reason: priceCents === offer.priceCents ? null : reason,
    payment: offerPayment(offer, priceCents, cohortStart)!,
    expires_at: new Date(now.getTime() + days * 24 * 60 * 60 * 1000).toISOString(),
  };
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/** An offer link's token: 32 random bytes, base64url. */
export function newOfferToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** A token's SHA-256 as PostgREST writes a bytea: `\x` and the hex. */
export async function offerTokenHash(token: string): Promise<string> {
  return `\\x${await sha256Hex(token)}`;
}

/**
 * The Stripe product an offer is sold as and its prices' lookup keys (made by `npm run
 * stripe:setup` from content): the price in full, each plan of equal monthly payments by its
 * count, and the membership a month. An offer sent at another price is charged with an inline
 * price of the same product.
 */
export function offerStripeKeys(offerId: string): {
  product: string;
  inFull: string;
  plan: (payments: number) => string;
  membership: string;
} {
  const base = `offer_${offerId.replace(/-/g, "_")}`;
  return {
    product: base,
    inFull: `${base}_in_full`,
    plan: (payments) => `${base}_${payments}_payments`,
    membership: `${base}_membership`,
  };
}

/** The sent option `choice` names (`in_full`, `plan:<index>`, as the offer's checkout puts it in the session), or null. */
export function optionOf(payment: OfferPayment, choice: unknown): PaymentOption | null {
  if (choice === "in_full") return payment.options.find((o) => o.kind === "in_full") ?? null;
  const plan = typeof choice === "string" ? /^plan:(\d{1,2})$/.exec(choice) : null;
  const option = plan ? payment.options[Number(plan[1])] : undefined;
  return option?.kind === "plan" ? option : null;
}

/** What choosing `option` charges at checkout: the price in full, or a plan's first payment. */
export const firstPayment = (option: PaymentOption): number =>
  option.kind === "in_full" ? option.amountCents : option.instalmentsCents[0]!;

/** Whether `token` is shaped like one newOfferToken makes (checked before any look-up). */
export const OFFER_TOKEN = /^[A-Za-z0-9_-]{43}$/;
