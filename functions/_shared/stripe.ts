/**
 * The `stripe` library as the functions use it: through `fetch` (the Node http module does not
 * exist on Supabase Edge), with the async Web Crypto signature verifier (the synchronous one fails
 * there), network retries (the library sends an idempotency key with each retried POST) and,
 * when STRIPE_API_URL is set, aimed at another API host: the local stack's Stripe stand-in.
 */
import Stripe from "stripe";
import { sha256Hex } from "./digest.ts";
import { type Env, required } from "./env.ts";

export { Stripe };

const clients = new Map<string, Stripe>();

/** One client per key and API address, kept across requests of a warm function instance. */
export function stripeClient(env: Env): Stripe {
  const { STRIPE_SECRET_KEY } = required(env, ["STRIPE_SECRET_KEY"]);
  const api = env.STRIPE_API_URL?.trim() ?? "";
  const id = `${STRIPE_SECRET_KEY}@${api}`;
  let client = clients.get(id);
  if (!client) {
    const target = api ? new URL(api) : null;
    client = new Stripe(STRIPE_SECRET_KEY, {
      httpClient: Stripe.createFetchHttpClient(),
      maxNetworkRetries: 2,
      timeout: 20_000,
      appInfo: { name: "advisor-accelerator" },
      ...(target
        ? {
            host: target.hostname,
            port: target.port || (target.protocol === "https:" ? "443" : "80"),
            protocol: target.protocol === "https:" ? "https" : "http",
          }
        : {}),
    });
    clients.set(id, client);
  }
  return client;
}

/** The id of a field Stripe sends as an id or, expanded, as the object: `customer`, `payment_intent`… */
export const idOf = (value: string | { id: string } | null | undefined): string | null =>
  typeof value === "string" ? value : (value?.id ?? null);

/** Web Crypto HMAC for `webhooks.constructEventAsync`: works on Deno, Node and every edge runtime. */
export const cryptoProvider = Stripe.createSubtleCryptoProvider();

/**
 * With STRIPE_TEST_CLOCKS=1 and a test key, a customer with this e-mail on a test clock of its own
 * (found again by e-mail, or made with a new clock at the current time), so that a developer or a
 * test can move that customer's subscriptions ahead (Stripe docs, "Test clocks": a clock's
 * customers are made with `test_clock`). Otherwise, as `customerFor`.
 */
export async function customerForTesting(stripe: Stripe, env: Env, email: string): Promise<string> {
  const key = env.STRIPE_SECRET_KEY ?? "";
  if (env.STRIPE_TEST_CLOCKS !== "1" || !/^(sk|rk)_test_/.test(key)) return customerFor(stripe, email);
  const { data } = await stripe.customers.list({ email, limit: 10 });
  const onClock = data.find((customer) => customer.test_clock);
  if (onClock) return onClock.id;
  const clock = await stripe.testHelpers.testClocks.create({
    frozen_time: Math.floor(Date.now() / 1000),
    name: email.slice(0, 300),
  });
  const customer = await stripe.customers.create({ email, test_clock: clock.id });
  return customer.id;
}

/** The buyer's Stripe customer: the newest with this e-mail, or a new one. */
export async function customerFor(stripe: Stripe, email: string): Promise<string> {
  const { data } = await stripe.customers.list({ email, limit: 1 });
  if (data[0]) return data[0].id;
  // Two first checkouts at once get the same new customer: Stripe replays a keyed create for 24 h.
  const customer = await stripe.customers.create({ email }, { idempotencyKey: `customer-${await sha256Hex(email)}` });
  return customer.id;
}
