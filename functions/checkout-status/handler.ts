/**
 * `checkout-status`: what the success page (/checkout/success?session_id=…) shows about one
 * Checkout Session: the program, the amount, the address the e-mails go to,
 * the order reference, the cohort a cohort program's buyer joins, where the payment stands
 * (paid, still processing, failed), and, once the order is recorded and paid, whether the buyer's
 * account was already in use (so the page asks no returning buyer to set a password). It answers
 * only for the session id it is given, which only its buyer holds (Stripe puts it in the success
 * URL), and only for this site's sessions; nothing about any other order. It answers from the order
 * the webhook recorded (`checkout_order_status`, supabase/migrations/20261202000100_checkout_status.sql,
 * with the account's use since 20261204000100_checkout_status_account.sql)
 * and asks Stripe only for a session the database does not know yet (the buyer came back before the
 * webhook, or without paying), under flood limits (LIMITS): anyone can call it, and every Stripe
 * request spends the rate limit the buyers' checkouts and the webhook share. An id that is not a
 * Checkout Session id is refused before either is asked. GET, no JWT (the page calls it without
 * supabase-js), CORS for the site's origins. Runs under Node (local stack,
 * tests) and Deno (Supabase Edge, ./index.ts).
 */
import type { CheckoutStatus, PaymentState } from "../../packages/shared/checkout-status.ts";
import { CATALOGUE } from "../_shared/catalogue.ts";
import { parseOrigins, preflight, withCors } from "../_shared/cors.ts";
import { ConfigError, type Env, type FunctionVariable, json } from "../_shared/env.ts";
import { orderReference } from "../_shared/order-reference.ts";
import { clientAddress, type Limit, overLimit, tooMany } from "../_shared/rate-limit.ts";
import { sessionCohort } from "../_shared/session-cohort.ts";
import { type Stripe, stripeClient } from "../_shared/stripe.ts";
import { adminClient } from "../_shared/supabase-admin.ts";

/** What the function reads from its environment (functions/_shared/env.ts checks them at start). */
export const ENV = [
  "STRIPE_SECRET_KEY",
  "STRIPE_API_URL",
  "ALLOWED_ORIGINS",
  "SUPABASE_URL",
  "SUPABASE_SERVICE_ROLE_KEY",
  "RATE_LIMIT_SCALE",
] as const satisfies readonly FunctionVariable[];

/** Stripe's Checkout Session ids: `cs_test_…` or `cs_live_…` and letters and digits. */
export const SESSION_ID = /^cs_(?:test|live)_[A-Za-z0-9]{8,250}$/;

/**
 * How many Stripe look-ups the function makes per window (functions/_shared/rate-limit.ts), for
 * sessions the database does not know. Per client address: a buyer back from Stripe's page before
 * the webhook asks a few times; a bank debit's page asks every POLL_MS
 * (src/features/checkout/success.ts) until the webhook records it, seconds later. For everyone
 * together: a share of Stripe's 25 requests a second per endpoint that leaves the checkout's
 * (functions/stripe-checkout/handler.ts LIMITS) and the webhook's their own.
 */
export const LIMITS = {
  address: { hits: 60, window: "1 hour" },
  everyone: { hits: 8, window: "1 second" },
} as const satisfies Record<string, Limit>;

/** What checkout_order_status answers for a recorded order. */
interface RecordedOrder {
  status: "pending" | "completed" | "canceled" | "refunded" | "failed" | "disputed";
  payment_status: string;
  product_key: string;
  amount_total: number;
  currency: string;
  email: string | null;
  cohort_start: string | null;
  /** Whether the order's account has a confirmed e-mail (a password set, a link followed); null without an account. */
  account_in_use?: boolean | null;
}

/**
 * Where a recorded order's payment stands, as Stripe's session would say it: a refunded or disputed
 * order was paid; an order the webhook recorded as cancelled belongs to an expired session.
 */
function recordedState(order: RecordedOrder): PaymentState {
  if (order.status === "pending") return order.payment_status === "unpaid" ? "processing" : "paid";
  if (order.status === "failed") return "failed";
  if (order.status === "canceled") return "expired";
  return "paid";
}

/** The recorded order of session `id`, or null when the database has none (or cannot say now). */
async function recorded(env: Env, id: string): Promise<RecordedOrder | null> {
  try {
    const { data, error } = await adminClient(env).rpc("checkout_order_status", { p_session_id: id });
    if (error) throw new Error(error.message);
    return (data as RecordedOrder | null) ?? null;
  } catch (error) {
    console.error("checkout-status could not read the order:", (error as Error).message);
    return null;
  }
}

/**
 * The wait to answer a flood with before asking Stripe, or 0. When the database cannot count, the
 * look-up is refused for a moment too: Stripe's rate limit is what the limits protect.
 */
async function floodWait(request: Request, env: Env): Promise<number> {
  const address = clientAddress(request);
  try {
    return await overLimit(env, "checkout-status", [
      address ? [{ kind: "address", value: address, limit: LIMITS.address }] : [],
      [{ kind: "everyone", value: "", limit: LIMITS.everyone }],
    ]);
  } catch (error) {
    console.error("checkout-status could not count the request against its limits:", (error as Error).message);
    return 1;
  }
}

function stateOf(session: Stripe.Checkout.Session): PaymentState {
  if (session.status === "open") return "open";
  if (session.status === "expired") return "expired";
  if (session.payment_status !== "unpaid") return "paid";
  const intent = typeof session.payment_intent === "object" ? session.payment_intent : null;
  // A declined bank debit sends the intent back for another payment method, or cancels it.
  if (intent && (intent.status === "requires_payment_method" || intent.status === "canceled")) return "failed";
  return "processing";
}

const METHODS = "GET, OPTIONS";

export default async function handler(request: Request, env: Env): Promise<Response> {
  const origins = parseOrigins(env.ALLOWED_ORIGINS);
  const early = preflight(request, origins, METHODS);
  if (early) return early;
  const answer = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
    withCors(
      request,
      json(body, status, { "cache-control": "no-store", ...(status === 405 ? { allow: METHODS } : {}), ...headers }),
      origins,
      METHODS,
    );
  if (request.method !== "GET") return answer({ error: "Method not allowed: use GET." }, 405);
  const id = new URL(request.url).searchParams.get("session_id") ?? "";
  if (!SESSION_ID.test(id)) return answer({ error: "session_id must be a Checkout Session id (cs_…)." }, 400);

  const order = await recorded(env, id);
  const known = order && CATALOGUE.find((p) => p.key === order.product_key);
  if (order && known) {
    const state = recordedState(order);
    const status: CheckoutStatus = {
      state,
      program: { name: known.name, key: known.key, course: `/portal/courses/${known.id}` },
      amountCents: order.amount_total,
      currency: order.currency,
      email: order.email,
      reference: await orderReference(id),
      cohortStart: order.cohort_start,
      // Only where the page uses it: of a paid order, about the account it belongs to.
      accountInUse: state === "paid" ? (order.account_in_use ?? null) : null,
    };
    return answer(status);
  }

  const wait = await floodWait(request, env);
  if (wait > 0) return answer(tooMany(wait), 429, { "retry-after": String(wait) });
  let session: Stripe.Checkout.Session;
  try {
    session = await stripeClient(env).checkout.sessions.retrieve(id, { expand: ["payment_intent"] });
  } catch (error) {
    if ((error as { code?: string }).code === "resource_missing")
      return answer({ error: "No checkout of this site has this id." }, 404);
    console.error("checkout-status failed:", error);
    return answer(
      { error: "The payment provider could not be reached. Please try again." },
      error instanceof ConfigError ? 500 : 502,
    );
  }
  const product = CATALOGUE.find((p) => p.key === session.metadata?.product_key);
  // A program's checkout is a payment; a coached offer's plan a subscription (functions/offer/handler.ts).
  const ours = session.mode === "payment" || (session.mode === "subscription" && Boolean(session.metadata?.offer_id));
  if (!ours || !product) return answer({ error: "No checkout of this site has this id." }, 404);
  const status: CheckoutStatus = {
    state: stateOf(session),
    program: { name: product.name, key: product.key, course: `/portal/courses/${product.id}` },
    amountCents: session.amount_total ?? product.priceCents,
    currency: session.currency ?? product.currency,
    email: session.customer_details?.email ?? session.customer_email ?? null,
    reference: await orderReference(session.id),
    cohortStart: sessionCohort(session, product),
    // The order is not recorded yet: whose account it is, the webhook has not said.
    accountInUse: null,
  };
  return answer(status);
}
