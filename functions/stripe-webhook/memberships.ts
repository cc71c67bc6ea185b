/**
 * The AI offer's monthly membership (docs/coached-offers.md): once the offer is paid, whichever
 * way, a subscription schedule at Stripe that starts on the membership's day (content's months
 * after the cohort starts, as sent with the offer) and then goes on month by month (`end_behavior:
 * release`: the subscription outlives the schedule), charged to the card the buyer paid with
 * (Stripe's docs, "Subscription schedules": a schedule with a future `start_date` creates the
 * subscription on that day; `default_settings.default_payment_method`). The buyer agreed to it on
 * the offer's page and on Stripe's (the session's `custom_text`, functions/offer/handler.ts), and
 * cancels it in Stripe's customer portal.
 *
 * Made once per offer (the offer's row in `memberships`, and Stripe's idempotency key for two
 * deliveries at once); its subscription's end is recorded from `customer.subscription.*`.
 */
import { offerStripeKeys } from "../_shared/offers.ts";
import { idOf, type Stripe } from "../_shared/stripe.ts";
import { type Deps, RetryableError, sentOffer } from "./process.ts";

/** What a membership's schedule and subscription carry, so that the webhook knows them again. */
export const MEMBERSHIP = "membership";

/** A day's noon in UTC (Unix seconds): the same calendar day across the Americas and Europe. */
const noonOf = (day: string) => Math.floor(Date.parse(`${day}T12:00:00Z`) / 1000);

/** The card the offer's checkout was paid with: the plan's subscription's, or the payment's. */
async function cardOf(stripe: Stripe, session: Stripe.Checkout.Session): Promise<string | null> {
  if (session.mode === "subscription") {
    const subscription = await stripe.subscriptions.retrieve(idOf(session.subscription)!);
    return idOf(subscription.default_payment_method);
  }
  const intentId = idOf(session.payment_intent);
  if (!intentId) return null;
  return idOf((await stripe.paymentIntents.retrieve(intentId)).payment_method);
}

/** Now for `customer`: its test clock's time, or the wall clock's (Unix seconds). */
async function nowFor(stripe: Stripe, customerId: string): Promise<number> {
  const customer = await stripe.customers.retrieve(customerId);
  const clock = "test_clock" in customer ? idOf(customer.test_clock) : null;
  if (!clock) return Math.floor(Date.now() / 1000);
  return (await stripe.testHelpers.testClocks.retrieve(clock)).frozen_time;
}

/** Starts the offer's membership after its checkout is paid, once; nothing for an offer without one. */
export async function startMembership(session: Stripe.Checkout.Session, deps: Deps): Promise<void> {
  const offerId = session.metadata?.offer_id;
  const customerId = idOf(session.customer);
  if (!offerId || !customerId) return;
  const offer = await sentOffer(deps.admin, offerId);
  const membership = offer?.payment.membership;
  if (!offer || !membership) return;
  const started = await deps.admin.from("memberships").select("schedule_id").eq("offer_id", offerId).maybeSingle();
  if (started.error) throw new RetryableError(`Reading the membership of ${offerId} failed: ${started.error.message}`);
  if (started.data) return;

  const { stripe } = deps;
  try {
    const currency = session.currency ?? "usd";
    const keys = offerStripeKeys(offer.offer_key);
    const { data: prices } = await stripe.prices.list({ lookup_keys: [keys.membership], active: true, limit: 1 });
    const listed = prices[0];
    const item =
      listed && listed.unit_amount === membership.monthlyCents && listed.currency === currency && listed.recurring
        ? { price: listed.id, quantity: 1 }
        : {
            price_data: {
              currency,
              product: keys.product,
              unit_amount: membership.monthlyCents,
              recurring: { interval: "month" as const },
            },
            quantity: 1,
          };
    const [card, now] = await Promise.all([cardOf(stripe, session), nowFor(stripe, customerId)]);
    const startsAt = noonOf(membership.startsOn);
    const metadata = { offer_id: offerId, kind: MEMBERSHIP };
    const schedule = await stripe.subscriptionSchedules.create(
      {
        customer: customerId,
        start_date: startsAt > now ? startsAt : "now",
        end_behavior: "release",
        ...(card ? { default_settings: { default_payment_method: card } } : {}),
        phases: [{ items: [item], metadata }],
        metadata,
      },
      { idempotencyKey: `membership-${offerId}` },
    );
    const { error: kept } = await deps.admin.from("memberships").upsert(
      {
        schedule_id: schedule.id,
        customer_id: customerId,
        checkout_session_id: session.id,
        offer_id: offerId,
        monthly_cents: membership.monthlyCents,
        currency,
        starts_on: membership.startsOn,
      },
      { onConflict: "schedule_id", ignoreDuplicates: true },
    );
    if (kept) throw new Error(`memberships: ${kept.message}`);
  } catch (error) {
    throw new RetryableError(`Starting the membership of offer ${offerId} failed: ${(error as Error).message}`);
  }
}

/**
 * An event about a membership's subscription (its metadata, which the schedule's phase set, names
 * the offer): the subscription is linked to the membership (its first invoice paid, or any change),
 * and its end recorded (`customer.subscription.deleted`). False when it is not a membership's.
 */
export async function recordMembershipEvent(event: Stripe.Event, deps: Deps): Promise<boolean> {
  const object = event.data.object as Stripe.Subscription | Stripe.Invoice;
  const [subscriptionId, metadata] =
    object.object === "invoice"
      ? [
          idOf(object.parent?.subscription_details?.subscription ?? null),
          object.parent?.subscription_details?.metadata ?? null,
        ]
      : [object.id, object.metadata];
  if (metadata?.kind !== MEMBERSHIP || !metadata.offer_id || !subscriptionId) return false;
  const subscription = object.object === "subscription" ? object : null;
  const ended = event.type === "customer.subscription.deleted" || subscription?.status === "canceled";
  const { error } = await deps.admin
    .from("memberships")
    .update({
      subscription_id: subscriptionId,
      ...(ended ? { ended_at: new Date((subscription?.ended_at ?? event.created) * 1000).toISOString() } : {}),
    })
    .eq("offer_id", metadata.offer_id);
  if (error) throw new RetryableError(`Recording ${event.type} ${event.id} failed: ${error.message}`);
  return true;
}
