/**
 * `offer`: the applicant's single-use offer link, `/offer/<token>` (docs/coached-offers.md). The
 * page's island POSTs the token from the address; the function finds the offer by the token's
 * SHA-256 (the database has nothing else) and answers it, or why it cannot be used.
 *
 * - `{ token }`: the offer as sent (the applicant's name, the program and what it includes, the
 *   cohort, the price, each way to pay and the membership, the terms, when the link stops working,
 *   and the business's day, from which the page dates each payment). The first answer marks the
 *   offer opened. A link a mail scanner merely fetches marks nothing: the page asks with a POST
 *   from its script, which a scanner following links does not send.
 * - `{ token, option }` (`in_full` or `plan:<n>`, an index of the sent options): a Stripe Checkout
 *   Session for that way to pay, `{ url }`. In full is a one-time payment (`payment` mode); a plan
 *   is a monthly subscription (`subscription` mode) whose first payment is taken now; the webhook
 *   ends it after the last one. The prices are the offer's lookup-key prices when the amounts are
 *   content's, otherwise inline prices of the offer's Stripe product (`offerStripeKeys`). The
 *   session before it, if still open, is expired first, so an offer never has two payable sessions.
 *
 * A used, withdrawn or expired link answers 410 with `code` (`paid`, `withdrawn`, `expired`) and
 * what to do; an unknown one 404. Nothing is charged from either: no session is made. A seat in a
 * cohort no longer open to join answers 409 `cohort_closed`. Limits per client address (the token
 * is 256 random bits; the limit keeps guessing and scraping off the database) and per offer for
 * sessions. No JWT (`verify_jwt = false`): the applicant may have no account; the token is the key.
 * CORS for the site's origins. Runs under Node (local stack, tests) and Deno (Supabase Edge).
 */
import { dayIn, formatDay, openCohorts } from "../../packages/shared/cohort.ts";
import { formatCents } from "../../packages/shared/money.ts";
import type { OfferPayment, PaymentOption } from "../../packages/shared/offer-options.ts";
import { readJson } from "../_shared/body.ts";
import { BUSINESS_EMAIL, CATALOGUE, COACHED_OFFERS, TIME_ZONE } from "../_shared/catalogue.ts";
import { jsonPost } from "../_shared/cors.ts";
import { ConfigError, type Env, type FunctionVariable, required } from "../_shared/env.ts";
import { firstPayment, OFFER_TOKEN, offerStripeKeys, offerTokenHash, optionOf } from "../_shared/offers.ts";
import { clientAddress, type Limit, overLimit, tooMany } from "../_shared/rate-limit.ts";
import { customerForTesting, type Stripe, stripeClient } from "../_shared/stripe.ts";
import { adminClient } from "../_shared/supabase-admin.ts";

/** What the function reads from its environment (functions/_shared/env.ts checks them at start). */
export const ENV = [
  "STRIPE_SECRET_KEY",
  "STRIPE_API_URL",
  "ALLOWED_ORIGINS",
  "SITE_URL",
  "SUPABASE_URL",
  "SUPABASE_SERVICE_ROLE_KEY",
  "RATE_LIMIT_SCALE",
  "STRIPE_TEST_CLOCKS",
] as const satisfies readonly FunctionVariable[];

/**
 * Per client address: an applicant opens their offer a few times and may choose twice; sixty an
 * hour is many times that, and far too few to find a token. Per offer: checkouts started, each a
 * few Stripe requests; an applicant changing their mind a few times is well inside ten.
 */
export const LIMITS = {
  address: { hits: 60, window: "1 hour" },
  offer: { hits: 10, window: "1 hour" },
} as const satisfies Record<string, Limit>;

/** An offer's row, as the function reads it (never its token's hash). */
interface OfferRow {
  id: string;
  offer_key: string;
  product_key: string;
  name: string;
  email: string;
  cohort_start: string | null;
  price_cents: number;
  payment: OfferPayment;
  expires_at: string;
  opened_at: string | null;
  paid_at: string | null;
  withdrawn_at: string | null;
  checkout_session_id: string | null;
}

const COLUMNS =
  "id, offer_key, product_key, name, email, cohort_start, price_cents, payment, expires_at, opened_at, paid_at, withdrawn_at, checkout_session_id";

/** What the offer's page shows. */
export interface OfferView {
  name: string;
  program: { name: string; includes: readonly string[] };
  cohortStart: string | null;
  priceCents: number;
  payment: OfferPayment;
  expiresAt: string;
  /** The business's day now (YYYY-MM-DD): a plan's first payment is today, the rest monthly from it. */
  today: string;
}

const NOT_FOUND = {
  code: "not_found",
  error:
    "This offer link is not valid. Check that the whole link from the e-mail was opened, or reply to the e-mail and we will send a new one.",
};

/** Why an offer's link cannot be used any more, in words the applicant can act on; null while it can. */
export function closedReason(offer: OfferRow, now: Date): { code: string; error: string } | null {
  if (offer.paid_at) {
    return {
      code: "paid",
      error: "This offer has been paid, so its link is used. Your program is in your client portal.",
    };
  }
  if (offer.withdrawn_at) {
    return {
      code: "withdrawn",
      error: `This offer was withdrawn. If you would like a new one, reply to the offer's e-mail or write to ${BUSINESS_EMAIL}.`,
    };
  }
  if (Date.parse(offer.expires_at) <= now.getTime()) {
    const when = new Intl.DateTimeFormat("en-US", {
      timeZone: TIME_ZONE,
      dateStyle: "long",
      timeStyle: "short",
    }).format(new Date(offer.expires_at));
    return {
      code: "expired",
      error: `This offer's link expired on ${when}. Reply to the offer's e-mail or write to ${BUSINESS_EMAIL} and we will send a new one.`,
    };
  }
  return null;
}

/** What Stripe's page says beside the button of an offer with a membership. */
export function membershipNote(membership: NonNullable<OfferPayment["membership"]>): string {
  return `Your ${formatCents(membership.monthlyCents)} monthly membership starts on ${formatDay(membership.startsOn)} and is charged to this card each month; you can cancel it at any time from your portal.`;
}

/**
 * The Checkout line item for `option`: the offer's lookup-key price when it charges what content
 * says, otherwise an inline price of the offer's product at the amount sent (monthly for a plan).
 */
async function lineItem(
  stripe: Stripe,
  offerKey: string,
  option: PaymentOption,
  currency: string,
): Promise<Stripe.Checkout.SessionCreateParams.LineItem> {
  const keys = offerStripeKeys(offerKey);
  const amount = firstPayment(option);
  const recurring = option.kind === "plan";
  const lookup =
    option.kind === "in_full"
      ? keys.inFull
      : option.instalmentsCents.every((a) => a === amount)
        ? keys.plan(option.instalmentsCents.length)
        : null;
  if (lookup) {
    const { data } = await stripe.prices.list({ lookup_keys: [lookup], active: true, limit: 1 });
    const price = data[0];
    if (
      price &&
      price.unit_amount === amount &&
      price.currency === currency &&
      (price.type === "recurring") === recurring
    ) {
      return { price: price.id, quantity: 1 };
    }
  }
  return {
    price_data: {
      currency,
      product: keys.product,
      unit_amount: amount,
      ...(recurring ? { recurring: { interval: "month" as const } } : {}),
    },
    quantity: 1,
  };
}

export default async function handler(request: Request, env: Env): Promise<Response> {
  const start = jsonPost(request, env.ALLOWED_ORIGINS);
  if (start.done) return start.done;
  const { answer } = start;

  const read = await readJson(request, 2048);
  if (!read.ok) return answer({ error: read.error }, read.status);
  const { token, option: choice } = (read.body ?? {}) as { token?: unknown; option?: unknown };
  if (typeof token !== "string" || !OFFER_TOKEN.test(token)) return answer(NOT_FOUND, 404);

  try {
    const address = clientAddress(request);
    if (address) {
      const wait = await overLimit(env, "offer", [[{ kind: "address", value: address, limit: LIMITS.address }]]);
      if (wait > 0) return answer(tooMany(wait), 429, { "retry-after": String(wait) });
    }
    const admin = adminClient(env);
    const found = await admin
      .from("coached_offers")
      .select(COLUMNS)
      .eq("token_hash", await offerTokenHash(token))
      .maybeSingle();
    if (found.error) throw new Error(`coached_offers: ${found.error.message}`);
    const offer = found.data as OfferRow | null;
    if (!offer) return answer(NOT_FOUND, 404);
    const now = new Date();
    const closed = closedReason(offer, now);
    if (closed) return answer(closed, 410);
    const content = COACHED_OFFERS.find((o) => o.id === offer.offer_key);
    const product = CATALOGUE.find((p) => p.key === offer.product_key);
    if (!content || !product) throw new Error(`offer ${offer.id}: ${offer.offer_key} is no longer in the catalogue`);

    if (choice === undefined) {
      if (!offer.opened_at) {
        const opened = await admin
          .from("coached_offers")
          .update({ opened_at: now.toISOString() })
          .eq("id", offer.id)
          .is("opened_at", null);
        if (opened.error) throw new Error(`marking ${offer.id} opened: ${opened.error.message}`);
      }
      const view: OfferView = {
        name: offer.name,
        program: { name: content.name, includes: content.includes },
        cohortStart: offer.cohort_start,
        priceCents: offer.price_cents,
        payment: offer.payment,
        expiresAt: offer.expires_at,
        today: dayIn(TIME_ZONE, now),
      };
      return answer(view);
    }

    const option = optionOf(offer.payment, choice);
    if (!option) return answer({ error: "option must be one of the offer's ways to pay.", code: "bad_option" }, 400);
    if (offer.cohort_start && !openCohorts(product.cohortStarts, dayIn(TIME_ZONE, now)).includes(offer.cohort_start)) {
      return answer(
        {
          code: "cohort_closed",
          error: `The cohort this offer holds a seat in is no longer open to join. Reply to the offer's e-mail or write to ${BUSINESS_EMAIL} and we will offer you a seat in the next one.`,
        },
        409,
      );
    }
    const wait = await overLimit(env, "offer", [[{ kind: "email", value: offer.id, limit: LIMITS.offer }]]);
    if (wait > 0) return answer(tooMany(wait), 429, { "retry-after": String(wait) });

    const { SITE_URL } = required(env, ["SITE_URL"]);
    const stripe = stripeClient(env);
    // One payable session per offer: the one before, if the applicant left it open, stops first. One
    // already paid means the offer is paid, whatever the webhook has recorded so far.
    if (offer.checkout_session_id) {
      const before = await stripe.checkout.sessions.retrieve(offer.checkout_session_id);
      if (before.status === "complete") {
        return answer(
          { code: "paid", error: "This offer's payment has gone through. Your program is in your client portal." },
          410,
        );
      }
      if (before.status === "open") await stripe.checkout.sessions.expire(before.id);
    }
    const [item, customer] = await Promise.all([
      lineItem(stripe, offer.offer_key, option, product.currency),
      customerForTesting(stripe, env, offer.email),
    ]);
    const chosen = option.kind === "in_full" ? "in_full" : `plan:${offer.payment.options.indexOf(option)}`;
    const metadata = {
      product_key: offer.product_key,
      offer_id: offer.id,
      offer_option: chosen,
      ...(offer.cohort_start ? { cohort_start: offer.cohort_start } : {}),
    };
    // The membership, where the offer has one, is charged later to the same card: said on Stripe's
    // page beside the button, and the card kept for it when the price is paid in one payment.
    const { membership } = offer.payment;
    const session = await stripe.checkout.sessions.create(
      {
        mode: option.kind === "in_full" ? "payment" : "subscription",
        customer,
        line_items: [item],
        success_url: new URL("/checkout/success", SITE_URL).href + "?session_id={CHECKOUT_SESSION_ID}",
        cancel_url: new URL(`/offer/${token}`, SITE_URL).href,
        metadata,
        ...(option.kind === "in_full"
          ? {
              payment_intent_data: {
                metadata,
                receipt_email: offer.email,
                ...(membership ? { setup_future_usage: "off_session" as const } : {}),
              },
            }
          : { subscription_data: { metadata } }),
        ...(membership ? { custom_text: { submit: { message: membershipNote(membership) } } } : {}),
      },
      { idempotencyKey: `offer-${offer.id}-${crypto.randomUUID()}` },
    );
    if (!session.url) throw new Error(`Checkout Session ${session.id} has no url`);
    const kept = await admin
      .from("coached_offers")
      .update({
        checkout_session_id: session.id,
        chosen_option: chosen,
        opened_at: offer.opened_at ?? now.toISOString(),
      })
      .eq("id", offer.id);
    if (kept.error) throw new Error(`keeping ${session.id} on ${offer.id}: ${kept.error.message}`);
    return answer({ url: session.url });
  } catch (error) {
    console.error("offer failed:", error);
    const status = error instanceof ConfigError ? 500 : 502;
    return answer({ error: "The offer could not be opened just now. Please try again in a moment." }, status);
  }
}
