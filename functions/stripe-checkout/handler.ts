/**
 * `stripe-checkout`: creates a Stripe Checkout Session for one program and answers `{ url }`,
 * the hosted payment page the checkout page sends the buyer to. The request is checked first
 * (./request.ts): nothing is created for a refused one. The price is found by its lookup key and
 * must match the catalogue's amount; the buyer's Stripe customer is reused by e-mail or created,
 * so every paid session is tied to a buyer; the program key and the visit's attribution go into
 * the session's metadata, where the webhook reads them, and the buyer's address into the payment
 * as `receipt_email`, where Stripe sends its receipt. An address with an account gets 409 and no
 * session unless its owner is signed in (`sign_in_required`: the address reveals an account at most,
 * never a purchase); a signed-in owner of the program, or one paying for it by bank debit, gets 409
 * too (refusalFor). A cohort program sells a
 * seat in the cohort the shared rule picks today (packages/shared/cohort.ts), whose start day goes
 * into the metadata as `cohort_start` for the webhook to record on the order; with no cohort open
 * to join it gets 409 `enrolment_closed` and no session. A flood gets 429 with
 * Retry-After and creates nothing at Stripe (LIMITS). Runs under Node (local stack, tests) and Deno
 * (Supabase Edge, ./index.ts).
 */
import { readJson } from "../_shared/body.ts";
import { crossSiteRefusal, parseOrigins, preflight, withCors } from "../_shared/cors.ts";
import { type CatalogueProduct, TIME_ZONE } from "../_shared/catalogue.ts";
import { ConfigError, type Env, type FunctionVariable, json } from "../_shared/env.ts";
import { clientAddress, type Limit, overLimit, tooMany } from "../_shared/rate-limit.ts";
import { customerFor, type Stripe, stripeClient } from "../_shared/stripe.ts";
import { adminClient, bearerToken } from "../_shared/supabase-admin.ts";
import { readCheckoutRequest } from "./request.ts";
import { roleOf } from "../../packages/shared/jwt.ts";
import { type Cohort, cohortAt } from "../../packages/shared/cohort.ts";

/** What the function reads from its environment (functions/_shared/env.ts checks them at start). */
export const ENV = [
  "STRIPE_SECRET_KEY",
  "STRIPE_API_URL",
  "ALLOWED_ORIGINS",
  "SUPABASE_URL",
  "SUPABASE_SERVICE_ROLE_KEY",
  "RATE_LIMIT_SCALE",
] as const satisfies readonly FunctionVariable[];

/**
 * How many checkouts start per window (functions/_shared/rate-limit.ts). Per e-mail address: a
 * buyer who comes back from Stripe's page and tries again a few times is well inside it. Per
 * client address: an office, or a room at an event where the program is announced, shares one.
 * For everyone together: each checkout makes two or three Stripe requests (the customer looked up,
 * created the first time; the session), and Stripe allows 25 requests a second on each endpoint
 * and 100 in all in live mode; at 15 a second the checkout stays under both, with room for the
 * webhook. A buyer is counted against the shared ceiling only once their own limits passed.
 */
export const LIMITS = {
  email: { hits: 10, window: "1 hour" },
  address: { hits: 60, window: "1 hour" },
  everyone: { hits: 15, window: "1 second" },
} as const satisfies Record<string, Limit>;

/**
 * The wait to answer a flood with, or 0. When the database cannot count, the checkout goes ahead
 * (as for refusalFor): a sale is not refused for an outage, and Stripe limits its own API.
 */
async function floodWait(request: Request, env: Env, email: string): Promise<number> {
  const address = clientAddress(request);
  try {
    return await overLimit(env, "checkout", [
      [
        { kind: "email", value: email, limit: LIMITS.email },
        ...(address ? [{ kind: "address", value: address, limit: LIMITS.address } as const] : []),
      ],
      [{ kind: "everyone", value: "", limit: LIMITS.everyone }],
    ]);
  } catch (error) {
    console.error("stripe-checkout could not count the request against its limits:", (error as Error).message);
    return 0;
  }
}

/** Prices change rarely: a warm instance keeps a looked-up price this long. */
const PRICE_TTL_MS = 5 * 60_000;
const prices = new Map<string, { price: Stripe.Price; until: number }>();

/**
 * The price to sell `product` at: the active price with its lookup key, or, while a price change
 * is being deployed, another active price of the product with the catalogue's amount. stripe:setup
 * moves the lookup key to the new price before these functions carry the new catalogue, and keeps
 * the old price active until they do (functions/_shared/stripe-setup.ts), so both the outgoing and
 * the incoming functions find theirs. An amount the catalogue does not say is never charged.
 */
export async function priceOf(stripe: Stripe, product: CatalogueProduct, account: string): Promise<Stripe.Price> {
  const cacheKey = `${account}:${product.lookupKey}`;
  const cached = prices.get(cacheKey);
  if (cached && cached.until > Date.now()) return cached.price;
  const sells = (p: Stripe.Price) =>
    p.active && p.type === "one_time" && p.unit_amount === product.priceCents && p.currency === product.currency;
  const { data } = await stripe.prices.list({ lookup_keys: [product.lookupKey], active: true, limit: 1 });
  let price = data[0];
  if (price && !sells(price)) {
    const productId = typeof price.product === "string" ? price.product : price.product.id;
    const others = await stripe.prices.list({ product: productId, active: true, limit: 100 });
    price = others.data.find(sells) ?? price;
  }
  if (!price)
    throw new ConfigError(`No active Stripe price has lookup key ${product.lookupKey}: run npm run stripe:setup`);
  if (!sells(price)) {
    throw new ConfigError(
      `Stripe price ${price.id} (${product.lookupKey}) is ${price.unit_amount} ${price.currency}, the catalogue says ${product.priceCents} ${product.currency}: run npm run stripe:setup`,
    );
  }
  prices.set(cacheKey, { price, until: Date.now() + PRICE_TTL_MS });
  return price;
}

/**
 * The signed-in caller's address, verified by Auth (supabase-js sends the session's access token with
 * `functions.invoke`; a visitor's request carries the anon key), or null for a visitor, or when Auth
 * cannot say now.
 */
async function callerEmail(request: Request, env: Env): Promise<string | null> {
  const token = bearerToken(request);
  if (!token || roleOf(token) !== "authenticated") return null;
  try {
    const { data, error } = await adminClient(env).auth.getUser(token);
    return error ? null : (data.user?.email?.toLowerCase() ?? null);
  } catch {
    return null;
  }
}

/**
 * The 409 to answer instead of a checkout, or null. Typing an address reveals at most that it has an
 * account, never what it bought: a visitor (or another account) giving an address with an account is
 * asked to sign in to continue, as the big course platforms do. Only the account's signed-in owner
 * hears that they own the program already, or that their bank payment for it is still clearing (no
 * second charge). When the database or Auth cannot say, the checkout goes ahead: a sale is not
 * refused for an outage (a double purchase is refundable).
 */
async function refusalFor(
  env: Env,
  email: string,
  product: CatalogueProduct,
  caller: string | null,
): Promise<Response | null> {
  const admin = adminClient(env);
  let data: unknown;
  try {
    const answer =
      caller === email.toLowerCase()
        ? await admin.rpc("buyer_order_state", { p_email: email, p_product_key: product.key })
        : await admin.rpc("auth_user_id_by_email", { p_email: email });
    if (answer.error) throw new Error(answer.error.message);
    data = answer.data;
  } catch (error) {
    console.error("stripe-checkout could not check the address:", (error as Error).message);
    return null;
  }
  if (caller !== email.toLowerCase())
    return data
      ? json({ error: `${email} already has an account. Sign in to continue.`, code: "sign_in_required" }, 409)
      : null;
  if (data === "owned")
    return json(
      { error: `You already own ${product.name}. Open it in your client portal.`, code: "already_owned" },
      409,
    );
  if (data === "processing")
    return json(
      {
        error: `Your bank payment for ${product.name} is still clearing. The program opens in your client portal as soon as it does.`,
        code: "payment_processing",
      },
      409,
    );
  return null;
}

/**
 * The cohort a buyer of `product` joins now, or the 409 to answer when no cohort is open to join;
 * `cohort` is null for a self-paced program.
 */
export function seatFor(
  product: CatalogueProduct,
  at: Date = new Date(),
): { cohort: Cohort | null; refused: null } | { cohort: null; refused: Response } {
  if (product.cohortStarts.length === 0) return { cohort: null, refused: null };
  const cohort = cohortAt(product.cohortStarts, TIME_ZONE, at);
  if (cohort) return { cohort, refused: null };
  return {
    cohort: null,
    refused: json(
      {
        error: `Enrolment in ${product.name} is closed: no cohort is open to join. Book a call and we will tell you when the next one starts.`,
        code: "enrolment_closed",
      },
      409,
    ),
  };
}

/**
 * The most a checkout request may hold: the program, the e-mail, two addresses and the visit's
 * first touch (at most 4 KB in the order, `stripe_orders.attribution`) fit in a fraction of it.
 */
export const MAX_BODY_BYTES = 16 * 1024;

export default async function handler(request: Request, env: Env): Promise<Response> {
  const origins = parseOrigins(env.ALLOWED_ORIGINS);
  const early = preflight(request, origins);
  if (early) return early;
  const answer = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
    withCors(request, json(body, status, status === 405 ? { allow: "POST, OPTIONS" } : headers), origins);
  if (request.method !== "POST") return answer({ error: "Method not allowed: use POST." }, 405);
  // Only the site's own pages (functions/_shared/cors.ts): no other website's visitors' browsers.
  const foreign = crossSiteRefusal(request, origins);
  if (foreign) return answer({ error: foreign.error }, foreign.status);

  const parsed = await readJson(request, MAX_BODY_BYTES);
  if (!parsed.ok) return answer({ error: parsed.error }, parsed.status);
  const read = readCheckoutRequest(parsed.body, origins);
  if (!read.ok) return answer({ error: read.error }, read.status);
  const { product, email, successUrl, cancelUrl, attribution } = read.request;
  const seat = seatFor(product);
  if (seat.refused) return withCors(request, seat.refused, origins);
  const wait = await floodWait(request, env, email);
  if (wait > 0) return answer(tooMany(wait), 429, { "retry-after": String(wait) });
  const refused = await refusalFor(env, email, product, await callerEmail(request, env));
  if (refused) return withCors(request, refused, origins);

  try {
    const stripe = stripeClient(env);
    const account = `${env.STRIPE_SECRET_KEY}@${env.STRIPE_API_URL ?? ""}`;
    const [price, customer] = await Promise.all([priceOf(stripe, product, account), customerFor(stripe, email)]);
    const create = (priceId: string) =>
      stripe.checkout.sessions.create(
        {
          mode: "payment",
          customer,
          line_items: [{ price: priceId, quantity: 1 }],
          success_url: successUrl,
          cancel_url: cancelUrl,
          metadata: {
            product_key: product.key,
            ...(seat.cohort ? { cohort_start: seat.cohort.start } : {}),
            ...attribution,
          },
          // Stripe e-mails its receipt to this address when the payment succeeds (live mode).
          payment_intent_data: { metadata: { product_key: product.key }, receipt_email: email },
        },
        { idempotencyKey: `checkout-${crypto.randomUUID()}` },
      );
    let session: Stripe.Checkout.Session;
    try {
      session = await create(price.id);
    } catch (error) {
      // The cached price was archived since (stripe:setup replaced it): look it up again, once.
      if ((error as { param?: string }).param !== "line_items[0][price]") throw error;
      prices.delete(`${account}:${product.lookupKey}`);
      session = await create((await priceOf(stripe, product, account)).id);
    }
    if (!session.url) throw new Error(`Checkout Session ${session.id} has no url`);
    return answer({ url: session.url });
  } catch (error) {
    console.error("stripe-checkout failed:", error);
    const status = error instanceof ConfigError ? 500 : 502;
    return answer({ error: "The payment provider could not start the checkout. Please try again." }, status);
  }
}
