/**
 * The request the checkout page sends to the `stripe-checkout` function: the spec's body
 * (price_id, mode, success_url, cancel_url, customer_email) plus the visit's first-touch
 * attribution. Pure and dependency-free: the checkout island builds it with `checkoutRequest`, the
 * function reads it with `readCheckoutRequest`, which trusts nothing the browser sent.
 */

/** The attribution fields a checkout carries into the order (src/lib/attribution.ts records them). */
export const ATTRIBUTION_KEYS = [
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_term",
  "utm_content",
  "referrer",
  "landing_page",
] as const;
export type AttributionKey = (typeof ATTRIBUTION_KEYS)[number];

/** The visit's first touch as the business reads it in a lead's e-mail (and the scheduling stand-in's). */
export const ATTRIBUTION_LABELS: readonly (readonly [AttributionKey, string])[] = [
  ["utm_source", "Source"],
  ["utm_medium", "Medium"],
  ["utm_campaign", "Campaign"],
  ["utm_term", "Term"],
  ["utm_content", "Content"],
  ["referrer", "Referrer"],
  ["landing_page", "Landing page"],
];

/** Stripe keeps metadata values up to 500 characters; ours are cut well below that. */
export const ATTRIBUTION_VALUE_MAX = 200;

/**
 * The attribution in `given` worth keeping: each field of ATTRIBUTION_KEYS that is a non-blank
 * string, trimmed and cut to ATTRIBUTION_VALUE_MAX. Anything else (other keys, other types, a
 * `given` that is not an object) is left out. What the checkout and the lead form send, and what
 * their functions keep, are both this.
 */
export function keptAttribution(given: unknown): Partial<Record<AttributionKey, string>> {
  const kept: Partial<Record<AttributionKey, string>> = {};
  if (!given || typeof given !== "object" || Array.isArray(given)) return kept;
  for (const key of ATTRIBUTION_KEYS) {
    const value = (given as Record<string, unknown>)[key];
    if (typeof value === "string" && value.trim()) kept[key] = value.trim().slice(0, ATTRIBUTION_VALUE_MAX);
  }
  return kept;
}

export interface CheckoutRequest {
  /** The program's Stripe price lookup key (content/programs/*.yaml `stripeLookupKey`). */
  price_id: string;
  mode: "payment";
  /** Where Stripe sends the buyer after paying; Stripe fills in `{CHECKOUT_SESSION_ID}`. */
  success_url: string;
  /** Where the hosted page's back link leads: this program's checkout page. */
  cancel_url: string;
  customer_email: string;
  attribution?: Partial<Record<AttributionKey, string>>;
}

/** The success page, with the placeholder Stripe replaces by the Checkout Session's id. */
export const SUCCESS_PATH = "/checkout/success?session_id={CHECKOUT_SESSION_ID}";

/** The same check as an `<input type="email">`: something@host, no spaces. Stripe accepts no less. */
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

/** The body for buying `program` from a page on `origin`. */
export function checkoutRequest(
  origin: string,
  program: { checkoutKey: string; stripeLookupKey: string },
  email: string,
  attribution?: Partial<Record<string, string>> | null,
): CheckoutRequest {
  const kept = keptAttribution(attribution);
  return {
    price_id: program.stripeLookupKey,
    mode: "payment",
    success_url: new URL(SUCCESS_PATH, origin).href.replace("%7BCHECKOUT_SESSION_ID%7D", "{CHECKOUT_SESSION_ID}"),
    cancel_url: new URL(`/checkout/${program.checkoutKey}`, origin).href,
    customer_email: email.trim(),
    ...(Object.keys(kept).length > 0 ? { attribution: kept } : {}),
  };
}
