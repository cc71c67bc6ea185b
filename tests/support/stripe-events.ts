/**
 * Stripe events built and signed as Stripe builds and signs them, for tests that must control
 * what the webhook receives and when: the real `stripe` library's test-header helper signs them.
 */
import { randomBytes } from "node:crypto";
import Stripe from "stripe";

const cryptoProvider = Stripe.createSubtleCryptoProvider();

/** A Stripe-style id with the object's prefix: `cs_test_…`, `cus_…`, `evt_…`. */
export const stripeId = (prefix: string) => `${prefix}_${randomBytes(9).toString("hex")}`;

/** A Checkout Session of ours as Stripe sends it in an event: paid by card unless changed. */
export function checkoutSession(email: string, overrides: Record<string, unknown> = {}) {
  return {
    id: stripeId("cs_test"),
    object: "checkout.session",
    mode: "payment",
    status: "complete",
    payment_status: "paid",
    amount_subtotal: 30_000,
    amount_total: 30_000,
    currency: "usd",
    customer: stripeId("cus"),
    customer_email: null,
    customer_details: { email, name: null },
    metadata: { product_key: "GROWTH_MINDSET", utm_source: "newsletter", landing_page: "/mindset" },
    payment_intent: stripeId("pi"),
    livemode: false,
    ...overrides,
  };
}

/** An event of `type` about `object`, in the shape of Stripe's Event. */
export function stripeEvent(type: string, object: unknown, id = stripeId("evt")) {
  return {
    id,
    object: "event",
    api_version: "2026-10-28.endive",
    created: Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

export interface Delivery {
  payload: string;
  signature: string;
}

/** The body (an object is serialised as Stripe does, indented) with its `Stripe-Signature` header. */
export async function signEvent(
  body: unknown,
  secret: string,
  options: { timestamp?: number } = {},
): Promise<Delivery> {
  const payload = typeof body === "string" ? body : JSON.stringify(body, null, 2);
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret,
    timestamp: options.timestamp,
    cryptoProvider,
  });
  return { payload, signature };
}

/** The hosted page's fields for the test card that pays (4242 4242 4242 4242). */
export const TEST_CARD = {
  method: "card",
  card_number: "4242 4242 4242 4242",
  expiry: "12 / 34",
  cvc: "123",
  name: "Ada Buyer",
};

/** The hosted page's fields for a US bank account: the payment stays processing until settled or failed. */
export const TEST_BANK = {
  method: "us_bank_account",
  account_holder: "Ada Buyer",
  routing_number: "110000000",
  account_number: "000123456789",
};

/** Pays on a Checkout Session's hosted page (its `url`) with a plain form POST, as a browser without JavaScript does. */
export function payOnPage(session: { url: string | null }, fields: Record<string, string>): Promise<Response> {
  return fetch(session.url!, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
}
