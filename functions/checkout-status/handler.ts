/**
 * `checkout-status`: what the success page (/checkout/success?session_id=…) shows about one
 * Checkout Session, read from Stripe: the program, the amount, the address the e-mails go to,
 * the order reference, the cohort a cohort program's buyer joins, and where the payment stands
 * (paid, still processing, failed). It answers
 * only for the session id it is given, which only its buyer holds (Stripe puts it in the success
 * URL), and only for this site's sessions; nothing about any other order. GET, no JWT (the page
 * calls it without supabase-js), CORS for the site's origins. Runs under Node (local stack,
 * tests) and Deno (Supabase Edge, ./index.ts).
 */
import type { CheckoutStatus, PaymentState } from "../../packages/shared/checkout-status.ts";
import { CATALOGUE } from "../_shared/catalogue.ts";
import { parseOrigins, preflight, withCors } from "../_shared/cors.ts";
import { ConfigError, type Env, type FunctionVariable, json } from "../_shared/env.ts";
import { orderReference } from "../_shared/order-reference.ts";
import { sessionCohort } from "../_shared/session-cohort.ts";
import { type Stripe, stripeClient } from "../_shared/stripe.ts";

/** What the function reads from its environment (functions/_shared/env.ts checks them at start). */
export const ENV = [
  "STRIPE_SECRET_KEY",
  "STRIPE_API_URL",
  "ALLOWED_ORIGINS",
] as const satisfies readonly FunctionVariable[];

/** Stripe's Checkout Session ids: `cs_test_…` or `cs_live_…`. */
const SESSION_ID = /^cs_[A-Za-z0-9_]{8,250}$/;

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
  const answer = (body: unknown, status = 200) =>
    withCors(
      request,
      json(body, status, { "cache-control": "no-store", ...(status === 405 ? { allow: METHODS } : {}) }),
      origins,
      METHODS,
    );
  if (request.method !== "GET") return answer({ error: "Method not allowed: use GET." }, 405);
  const id = new URL(request.url).searchParams.get("session_id") ?? "";
  if (!SESSION_ID.test(id)) return answer({ error: "session_id must be a Checkout Session id (cs_…)." }, 400);

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
  if (session.mode !== "payment" || !product) return answer({ error: "No checkout of this site has this id." }, 404);
  const status: CheckoutStatus = {
    state: stateOf(session),
    program: { name: product.name, key: product.key, course: `/portal/courses/${product.id}` },
    amountCents: session.amount_total ?? product.priceCents,
    currency: session.currency ?? product.currency,
    email: session.customer_details?.email ?? session.customer_email ?? null,
    reference: await orderReference(session.id),
    cohortStart: sessionCohort(session, product),
  };
  return answer(status);
}
