// The calls the benches that buy make, as the site and Stripe make them: the checkout page's call
// of `stripe-checkout`, and Stripe's signed deliveries to `stripe-webhook` (the real `stripe`
// library's test-header helper signs them with the stand-in's secret).
import type { TestStack } from "@advisor-accelerator/local-stack";
import { checkoutRequest } from "../../packages/shared/checkout-request.ts";

/** The site the calls come from: the checkout's origin and return URLs. */
const SITE = "http://localhost:4321";

/** Calls `stripe-checkout` for Advisor OS Accelerator as the checkout page does, for `email`. */
export function postCheckout(stack: TestStack, email: string, utmSource: string): Promise<Response> {
  const body = checkoutRequest(
    SITE,
    { checkoutKey: "OS_ACCELERATOR", stripeLookupKey: "os_accelerator" },
    email,
    { utm_source: utmSource },
  );
  return fetch(`${stack.url}/functions/v1/stripe-checkout`, {
    method: "POST",
    headers: {
      origin: SITE,
      "content-type": "application/json",
      apikey: stack.anonKey,
      authorization: `Bearer ${stack.anonKey}`,
    },
    body: JSON.stringify(body),
  });
}

/** A webhook delivery: the body and its `Stripe-Signature` header. */
export interface Delivery {
  payload: string;
  signature: string;
}

let stripe: Promise<{ Stripe: typeof import("stripe").default; cryptoProvider: unknown }> | undefined;

/** The `stripe` library and its Web Crypto provider, loaded once, when a bench first signs. */
const stripeSigner = () =>
  (stripe ??= import("stripe").then(({ default: Stripe }) => ({
    Stripe,
    cryptoProvider: Stripe.createSubtleCryptoProvider(),
  })));

/** An event of `type` about `object`, with its id, signed as Stripe signs it. */
export async function signedEvent(stack: TestStack, id: string, type: string, object: unknown): Promise<Delivery> {
  const { Stripe, cryptoProvider } = await stripeSigner();
  const payload = JSON.stringify({ id, object: "event", type, created: Math.floor(Date.now() / 1000), data: { object } });
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret: stack.stripe.webhookSecret,
    cryptoProvider: cryptoProvider as ReturnType<typeof Stripe.createSubtleCryptoProvider>,
  });
  return { payload, signature };
}

/** Delivers `delivery` to `stripe-webhook` as Stripe does. */
export function postEvent(stack: TestStack, { payload, signature }: Delivery): Promise<Response> {
  return fetch(`${stack.url}/functions/v1/stripe-webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": signature },
    body: payload,
  });
}
