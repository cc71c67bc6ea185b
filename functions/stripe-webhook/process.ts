/**
 * What a verified Stripe event does to the database: the webhook's whole logic, shared by the
 * handler (./handler.ts) and `npm run stripe:reconcile`. An event about a Checkout Session of
 * ours takes two database calls (supabase/migrations/*_checkout_webhook.sql, *_after_payment.sql):
 * `prepare_stripe_event` (seen before? the buyer's account, or the claim to create it), then,
 * after creating a new buyer's account, `record_stripe_event`, which records the event id,
 * upserts the customer and the order and queues the e-mail the event calls for, in one
 * transaction; then the queued e-mails go out (./emails.ts). Every step is idempotent, so a redelivery or a concurrent delivery cannot add a second order or user, and
 * the database keeps an order's status from moving backwards when events arrive out of order.
 * A session that pays a coached offer (metadata `offer_id`, functions/offer/handler.ts) is checked
 * against the offer as sent instead of the program's price, and marks the offer paid; a plan's
 * (a subscription) is followed after it by ./plans.ts.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { BUSINESS_EMAIL, CATALOGUE, type CatalogueProduct } from "../_shared/catalogue.ts";
import { disputeEmail, paymentReviewEmail } from "../_shared/emails.ts";
import { orderReference } from "../_shared/order-reference.ts";
import { type Email, sendEmail } from "../_shared/mail.ts";
import { firstPayment, optionOf } from "../_shared/offers.ts";
import { sessionCohort } from "../_shared/session-cohort.ts";
import type { OfferPayment } from "../../packages/shared/offer-options.ts";
import { ATTRIBUTION_KEYS } from "../../packages/shared/checkout-request.ts";
import type { Env } from "../_shared/env.ts";
import { idOf, type Stripe } from "../_shared/stripe.ts";
import { deliverOrderEmails } from "./emails.ts";
import { startMembership } from "./memberships.ts";
import { PLAN_EVENTS, recordPlanCheckout, recordPlanEvent } from "./plans.ts";

/** recorded; duplicate (seen before); ignored (not ours, or of no concern); held (paid the wrong amount: for review). */
export type Outcome = "recorded" | "duplicate" | "ignored" | "held";
type OrderStatus = "pending" | "completed" | "canceled" | "refunded" | "failed";

/** An error a later delivery may not meet (the database or Auth was unreachable): answer 5xx. */
export class RetryableError extends Error {}

export interface Deps {
  stripe: Stripe;
  admin: SupabaseClient;
  /** Where a message about an event we skip goes; console by default. */
  log?: (message: string) => void;
  /**
   * The mail settings (SITE_URL, RESEND_API_KEY, MAIL_FROM…): with them the order's e-mails go
   * out after the event is recorded; without them they stay queued (functions/stripe-webhook/emails.ts).
   */
  mail?: Env;
}

/**
 * The events the webhook acts on; any other gets a 2xx and changes nothing. The Stripe endpoint is
 * registered for exactly these (DEPLOY.md, checked by tests/tooling/deploy-guide.test.ts).
 */
export const HANDLED_EVENTS = [
  "checkout.session.completed",
  "checkout.session.async_payment_succeeded",
  "checkout.session.async_payment_failed",
  "checkout.session.expired",
  "charge.refunded",
  "refund.failed",
  "charge.dispute.created",
  "charge.dispute.updated",
  "charge.dispute.closed",
  "charge.dispute.funds_withdrawn",
  "charge.dispute.funds_reinstated",
  ...PLAN_EVENTS,
] as const satisfies readonly Stripe.Event.Type[];

const handled = new Set<string>(HANDLED_EVENTS);

/** The order status an event about `session` means, or null for one that does not concern orders. */
function statusFor(type: string, session: Stripe.Checkout.Session): OrderStatus | null {
  switch (type) {
    case "checkout.session.completed":
      return session.payment_status === "unpaid" ? "pending" : "completed";
    case "checkout.session.async_payment_succeeded":
      return "completed";
    case "checkout.session.async_payment_failed":
      return "failed";
    case "checkout.session.expired":
      return "canceled";
    default:
      return null;
  }
}

/** How long a delivery waits for a concurrent one that is creating the same buyer's account. */
const WAIT_FOR_ACCOUNT_MS = 3_000;

/** What `prepare_stripe_event` answers: a duplicate, or the buyer's account, or the right to create it. */
interface Prepared {
  duplicate: boolean;
  user_id?: string;
  claimed?: boolean;
}

async function prepare(admin: SupabaseClient, eventId: string, email: string | null): Promise<Prepared> {
  const { data, error } = await admin.rpc("prepare_stripe_event", { p_event_id: eventId, p_email: email });
  if (error) throw new RetryableError(`Preparing ${eventId} failed: ${error.message}`);
  return data as Prepared;
}

async function lookup(admin: SupabaseClient, email: string): Promise<string | null> {
  const { data, error } = await admin.rpc("auth_user_id_by_email", { p_email: email });
  if (error) throw new RetryableError(`Looking up the buyer's account failed: ${error.message}`);
  return (data as string | null) ?? null;
}

/**
 * The account of `email`: the one that exists, or a new one, made the way Auth's invite makes it
 * (no password yet) but without Auth's e-mail: the set-password link goes in the product's own
 * access e-mail (./emails.ts), one message for the buyer to act on. Of concurrent deliveries for
 * one new buyer only the one that claimed the address creates it; the others wait for it.
 */
export async function ensureBuyer(
  admin: SupabaseClient,
  email: string,
  prepared: Prepared,
): Promise<{ userId: string; linkTokenHash?: string }> {
  if (prepared.user_id) return { userId: prepared.user_id };
  if (!prepared.claimed) {
    for (let waited = 0; waited < WAIT_FOR_ACCOUNT_MS; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const created = await lookup(admin, email);
      if (created) return { userId: created };
    }
    throw new RetryableError(`Another delivery is still creating the account of ${email}`);
  }

  // The link made with the account is kept for the access e-mail (record_stripe_event).
  const invited = await admin.auth.admin.generateLink({ type: "invite", email });
  if (!invited.error) return { userId: invited.data.user.id, linkTokenHash: invited.data.properties.hashed_token };
  const now = await lookup(admin, email);
  if (now) return { userId: now };
  // Let the next delivery claim the address at once.
  await admin.from("buyer_invites").delete().eq("email", email.toLowerCase()).is("user_id", null);
  throw new RetryableError(`Creating the buyer's account failed: ${invited.error.message}`);
}

/**
 * The name the buyer gave on Stripe's page (the session's `customer_details.name`), as their
 * profile's name when they have no profile yet: the portal greets them by it from the first visit
 * instead of their e-mail's local part. A profile that exists, named or not, is theirs and is left
 * alone (supabase/migrations/20261203000200_buyer_name.sql). A failure only costs the greeting: it
 * is logged, and the order goes on.
 */
async function nameFromCheckout(
  admin: SupabaseClient,
  userId: string,
  session: Stripe.Checkout.Session,
  log: (m: string) => void,
): Promise<void> {
  const name = session.customer_details?.name?.replace(/\s+/g, " ").trim().slice(0, 200);
  if (!name) return;
  const { error } = await admin.rpc("name_new_buyer", { p_user_id: userId, p_name: name });
  if (error) log(`Could not keep the buyer's name for ${userId}: ${error.message}`);
}

/** Stripe's receipt page of the payment `paymentIntent`, when there is one; null if Stripe cannot say now. */
async function receiptOf(stripe: Stripe, paymentIntent: string, log: (m: string) => void): Promise<string | null> {
  try {
    const intent = await stripe.paymentIntents.retrieve(paymentIntent, { expand: ["latest_charge"] });
    const charge = intent.latest_charge;
    return charge && typeof charge === "object" ? (charge.receipt_url ?? null) : null;
  } catch (error) {
    log(`Could not read the receipt of ${paymentIntent}: ${(error as Error).message}`);
    return null;
  }
}

/**
 * Why `session`'s payment is not what `product` costs, or null when it is. A signed event is
 * Stripe's word, but not proof that the program's price was paid: a session made outside the
 * checkout function (a payment link, a key used elsewhere) can carry our metadata at any amount.
 * The catalogue's amount and currency pass at once. Anything else passes only when the session's
 * one line item, bought once, is a price of the program's own Stripe product at exactly the amount
 * paid: a checkout started at the price before a change (stripe:setup keeps that price active
 * until the functions carry the new catalogue, and a session stays open for 24 hours), which
 * Stripe must confirm. A session Stripe does not know is a problem; Stripe unreachable is retried.
 */
export async function paymentProblem(
  stripe: Stripe,
  session: Stripe.Checkout.Session,
  product: CatalogueProduct,
): Promise<string | null> {
  const paid = `${session.amount_total ?? "no amount"} ${session.currency ?? "(no currency)"}`;
  if (session.currency !== product.currency) return `paid ${paid}, not in ${product.currency}`;
  if (session.amount_total === product.priceCents) return null;
  let items: Stripe.LineItem[];
  let programProduct: string | undefined;
  try {
    const known = await stripe.checkout.sessions.retrieve(session.id, { expand: ["line_items"] });
    if (known.amount_total !== session.amount_total || known.currency !== session.currency)
      return `paid ${paid} by the event, ${known.amount_total} ${known.currency} at Stripe`;
    items = known.line_items?.data ?? [];
    const { data } = await stripe.prices.list({ lookup_keys: [product.lookupKey], limit: 1 });
    const price = data[0]?.product;
    programProduct = typeof price === "string" ? price : price?.id;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return `paid ${paid}; Stripe has no such session`;
    throw new RetryableError(`Checking what ${session.id} paid failed: ${(error as Error).message}`);
  }
  const item = items[0];
  if (items.length !== 1 || !item?.price || item.quantity !== 1) return `paid ${paid} for ${items.length} line items`;
  const itemProduct = typeof item.price.product === "string" ? item.price.product : item.price.product.id;
  if (!programProduct || itemProduct !== programProduct)
    return `paid ${paid} for price ${item.price.id} of another Stripe product (${itemProduct})`;
  if (item.price.unit_amount !== session.amount_total || item.price.currency !== session.currency)
    return `paid ${paid}, not price ${item.price.id}'s ${item.price.unit_amount} ${item.price.currency}`;
  return null;
}

/** A coached offer as the webhook checks a payment against it. */
export interface SentOffer {
  id: string;
  offer_key: string;
  product_key: string;
  payment: OfferPayment;
  paid_at: string | null;
  checkout_session_id: string | null;
}

/**
 * The coached offer `id` names (a session's or subscription's metadata `offer_id`), as sent; null
 * when none was sent with it, an id that is not one included. The database unreachable is retried.
 */
export async function sentOffer(admin: SupabaseClient, id: string | undefined): Promise<SentOffer | null> {
  if (!id) return null;
  const { data, error } = await admin
    .from("coached_offers")
    .select("id, offer_key, product_key, payment, paid_at, checkout_session_id")
    .eq("id", id)
    .maybeSingle();
  // 22P02: not a uuid, so no offer of ours.
  if (error && error.code !== "22P02") throw new RetryableError(`Reading offer ${id} failed: ${error.message}`);
  return (data as SentOffer | null) ?? null;
}

/**
 * Why `session` does not pay its coached offer as sent, with the amount the offer asked; a null
 * problem when it does. The offer's chosen way to pay (metadata `offer_option`) names the amount:
 * the price in full, or a plan's first payment, in the program's currency. An offer paid already
 * through another session is a problem too: the second payment is held for someone to refund.
 */
export async function offerProblem(
  admin: SupabaseClient,
  session: Stripe.Checkout.Session,
  product: CatalogueProduct,
): Promise<{ problem: string | null; expected: number | null }> {
  const paid = `${session.amount_total ?? "no amount"} ${session.currency ?? "(no currency)"}`;
  const offer = await sentOffer(admin, session.metadata?.offer_id);
  if (!offer)
    return { problem: `paid ${paid} for offer ${session.metadata?.offer_id}, which was never sent`, expected: null };
  const option = optionOf(offer.payment, session.metadata?.offer_option);
  if (!option || offer.product_key !== product.key) {
    return { problem: `paid ${paid} for a way to pay offer ${offer.id} was not sent with`, expected: null };
  }
  const expected = firstPayment(option);
  const mode = option.kind === "in_full" ? "payment" : "subscription";
  if (session.mode !== mode)
    return {
      problem: `paid ${paid} in ${session.mode} mode; the offer's ${option.kind} is paid in ${mode} mode`,
      expected,
    };
  if (session.currency !== product.currency) return { problem: `paid ${paid}, not in ${product.currency}`, expected };
  if (session.amount_total !== expected) {
    return { problem: `paid ${paid}; offer ${offer.id} asks ${expected} ${product.currency}`, expected };
  }
  if (offer.paid_at && offer.checkout_session_id !== session.id) {
    return { problem: `paid ${paid}; offer ${offer.id} was paid already through another session`, expected };
  }
  return { problem: null, expected };
}

/** What a review says of the checkout a held event is about (a plan's invoice names its plan's). */
export type ReviewedSession = Pick<Stripe.Checkout.Session, "id" | "customer" | "customer_email" | "metadata"> & {
  amount_total?: number | null;
  currency?: string | null;
  customer_details?: { email?: string | null } | null;
};

/**
 * Keeps `event` for someone to look at (supabase/migrations/20261130000100_payment_reviews.sql):
 * a payment that was not the program's price (or a coached offer's amount), which gets no order,
 * account or access; or a refund that failed, whose buyer has not been paid back. A redelivery
 * adds nothing.
 */
export async function holdForReview(
  event: Stripe.Event,
  session: ReviewedSession,
  product: CatalogueProduct,
  problem: string,
  deps: Deps,
  paid: { amount: number | null; currency: string | null } = {
    amount: session.amount_total ?? null,
    currency: session.currency ?? null,
  },
  /** What the payment should have been, when not the program's price (a coached offer's). */
  expected: number | null = product.priceCents,
): Promise<Outcome> {
  const customerId = idOf(session.customer);
  const { error } = await deps.admin.from("stripe_payment_reviews").upsert(
    {
      event_id: event.id,
      event_type: event.type,
      checkout_session_id: session.id,
      customer_id: customerId,
      email: session.customer_details?.email ?? session.customer_email ?? null,
      product_key: product.key,
      amount_total: paid.amount,
      currency: paid.currency,
      expected_amount: expected,
      expected_currency: product.currency,
      reason: problem.slice(0, 1000),
    },
    { onConflict: "event_id", ignoreDuplicates: true },
  );
  if (error) throw new RetryableError(`Holding ${event.id} for review failed: ${error.message}`);
  console.error(
    `stripe-webhook held ${event.type} ${event.id} for review: session ${session.id} for ${product.key}: ${problem}.`,
  );
  if (deps.mail) await notifyReview(event, session, product, problem, paid, expected, deps.admin, deps.mail);
  return "held";
}

/**
 * Sends the business an e-mail about one row of `table` (`column` = `key`) once: the row records the
 * send (`notified_at`) or why it failed (`notify_error`), and a failure makes the delivery fail
 * (what the row stands for is recorded) so that Stripe's redelivery sends it; `idempotencyKey` is
 * the provider's, so two deliveries at once send one message. `compose` runs only when it is owed.
 */
async function notifyOnce(
  admin: SupabaseClient,
  mail: Env,
  row: { table: "stripe_payment_reviews" | "stripe_disputes"; column: string; key: string; what: string },
  idempotencyKey: string,
  compose: () => Promise<Email>,
): Promise<void> {
  const rows = () => admin.from(row.table);
  const { data, error } = await rows().select("notified_at").eq(row.column, row.key).maybeSingle();
  if (error) throw new RetryableError(`Reading ${row.what} failed: ${error.message}`);
  if ((data as { notified_at: string | null } | null)?.notified_at) return;
  let failure: string | null = null;
  try {
    await sendEmail(mail, await compose(), idempotencyKey);
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  const done = failure
    ? { notify_error: failure.slice(0, 1000) }
    : { notified_at: new Date().toISOString(), notify_error: null };
  const { error: recorded } = await rows().update(done).eq(row.column, row.key);
  if (recorded) console.error(`stripe-webhook could not record the e-mail of ${row.what}:`, recorded.message);
  if (failure) throw new RetryableError(`${row.what} is recorded; its e-mail waits for a retry (${failure})`);
}

/** E-mails the business about a held event, once (notifyOnce). */
function notifyReview(
  event: Stripe.Event,
  session: ReviewedSession,
  product: CatalogueProduct,
  problem: string,
  paid: { amount: number | null; currency: string | null },
  expected: number | null,
  admin: SupabaseClient,
  mail: Env,
): Promise<void> {
  const row = {
    table: "stripe_payment_reviews",
    column: "event_id",
    key: event.id,
    what: `the review of ${event.id}`,
  } as const;
  return notifyOnce(admin, mail, row, `review-${event.id}`, async () =>
    paymentReviewEmail(BUSINESS_EMAIL, {
      eventId: event.id,
      eventType: event.type,
      sessionId: session.id,
      programName: product.name,
      email: session.customer_details?.email ?? session.customer_email ?? null,
      amountCents: paid.amount,
      currency: paid.currency,
      priceCents: expected,
      priceCurrency: product.currency,
      offer: Boolean(session.metadata?.offer_id),
      reason: problem,
    }),
  );
}

/** The Checkout Session of ours that `paymentIntent` paid, with its program; null for another's. */
async function sessionOf(
  stripe: Stripe,
  paymentIntent: string | Stripe.PaymentIntent | null,
): Promise<{ session: Stripe.Checkout.Session; product: CatalogueProduct } | null> {
  if (!paymentIntent) return null;
  const id = typeof paymentIntent === "string" ? paymentIntent : paymentIntent.id;
  const { data } = await stripe.checkout.sessions.list({ payment_intent: id, limit: 1 });
  const session = data[0];
  const product = CATALOGUE.find((p) => p.key === session?.metadata?.product_key);
  return session && product && session.mode === "payment" ? { session, product } : null;
}

/** Records `event` about `session` as an order in `status`. */
async function recordSession(
  event: Stripe.Event,
  session: Stripe.Checkout.Session,
  status: OrderStatus,
  deps: Deps,
  charge?: Stripe.Charge,
): Promise<Outcome> {
  const log = deps.log ?? ((m: string) => console.warn(m));
  const product = CATALOGUE.find((p) => p.key === session.metadata?.product_key);
  const customerId = idOf(session.customer);
  const email = session.customer_details?.email ?? session.customer_email ?? null;
  const offerId = session.metadata?.offer_id;
  // A program's checkout is a payment; a coached offer's plan is a subscription.
  const ours = session.mode === "payment" || (session.mode === "subscription" && Boolean(offerId));
  if (!ours || !product || !customerId || (!email && status !== "canceled")) {
    log(`Skipped ${event.type} ${event.id}: session ${session.id} is not a checkout of this site.`);
    return "ignored";
  }
  // What grants access (a payment, or one on its way) must be the program's price, or the offer's.
  if (status === "completed" || status === "pending") {
    if (offerId) {
      const { problem, expected } = await offerProblem(deps.admin, session, product);
      if (problem) return holdForReview(event, session, product, problem, deps, undefined, expected);
    } else {
      const problem = await paymentProblem(deps.stripe, session, product);
      if (problem) return holdForReview(event, session, product, problem, deps);
    }
  }
  const buyerEmail = status === "canceled" ? null : email!;
  const prepared = await prepare(deps.admin, event.id, buyerEmail);
  if (prepared.duplicate) {
    // Recorded before; the offer may still be unmarked and its e-mails queued (the last delivery
    // met an outage after the order was recorded).
    if (offerId && status === "completed") await offerPaid(event, session, deps);
    await sendEmails(session.id, deps, log);
    return "duplicate";
  }
  const buyer = buyerEmail ? await ensureBuyer(deps.admin, buyerEmail, prepared) : null;
  if (buyer) await nameFromCheckout(deps.admin, buyer.userId, session, log);
  const attribution: Record<string, string> = {};
  for (const key of ATTRIBUTION_KEYS) {
    const value = session.metadata?.[key];
    if (value) attribution[key] = value;
  }
  const paymentIntent = idOf(session.payment_intent);
  const receiptUrl =
    charge?.receipt_url ??
    (status === "completed" && paymentIntent ? await receiptOf(deps.stripe, paymentIntent, log) : null);
  const { data, error } = await deps.admin.rpc("record_stripe_event", {
    p_event_id: event.id,
    p_event_type: event.type,
    p_checkout_session_id: session.id,
    p_customer_id: customerId,
    p_user_id: buyer?.userId ?? null,
    p_payment_intent_id: paymentIntent,
    p_product_key: product.key,
    p_amount_subtotal: session.amount_subtotal ?? session.amount_total ?? 0,
    p_amount_total: session.amount_total ?? 0,
    p_currency: session.currency ?? product.currency,
    p_payment_status: session.payment_status,
    p_status: status,
    p_attribution: attribution,
    p_buyer_email: prepared.claimed ? buyerEmail : null,
    p_receipt_url: receiptUrl,
    p_link_token_hash: buyer?.linkTokenHash ?? null,
    p_cohort_start: sessionCohort(session, product),
  });
  if (error) throw new RetryableError(`Recording ${event.type} ${event.id} failed: ${error.message}`);
  if (offerId && status === "completed") await offerPaid(event, session, deps);
  await sendEmails(session.id, deps, log);
  return data as Outcome;
}

/**
 * An offer's checkout paid: the offer marked paid, a plan's subscription followed from now on, and
 * the offer's membership, where it has one, started at Stripe for its day (./memberships.ts).
 */
async function offerPaid(event: Stripe.Event, session: Stripe.Checkout.Session, deps: Deps): Promise<void> {
  await markOfferPaid(deps.admin, session.metadata!.offer_id!, session.id);
  if (session.mode === "subscription") await recordPlanCheckout(event, session, deps);
  await startMembership(session, deps);
}

/**
 * Marks the offer `session` paid, once: its link is used from now on (functions/offer/handler.ts),
 * and the desk lists it as paid. After the order is recorded, so a failure here is retried by
 * Stripe's redelivery, which finds the order recorded and marks the offer then.
 */
async function markOfferPaid(admin: SupabaseClient, offerId: string, sessionId: string): Promise<void> {
  const { error } = await admin
    .from("coached_offers")
    .update({ paid_at: new Date().toISOString(), checkout_session_id: sessionId })
    .eq("id", offerId)
    .is("paid_at", null);
  if (error) throw new RetryableError(`Marking offer ${offerId} paid failed: ${error.message}`);
}

/**
 * Sends what the order's events queued. An e-mail that could not go yet makes the delivery fail
 * (the order is recorded): Stripe delivers the event again later, and that delivery sends it.
 */
async function sendEmails(sessionId: string, deps: Deps, log: (m: string) => void): Promise<void> {
  if (!deps.mail) return;
  const report = await deliverOrderEmails(deps.admin, deps.mail, sessionId, log);
  if (report.queued.length > 0) {
    const problems = report.queued.map((q) => `${q.kind}: ${q.error}`).join("; ");
    throw new RetryableError(`Order ${sessionId} is recorded; its e-mail waits for a retry (${problems})`);
  }
}

/**
 * Records an event about a dispute of one of our orders' payments (record_dispute_event,
 * supabase/migrations/20261202000400_disputes.sql), once, in any order: a chargeback open or lost
 * holds the order as disputed, a won one gives it back; then tells the business, once per dispute.
 * The event carries the whole dispute, so nothing is asked of Stripe.
 */
async function recordDispute(event: Stripe.Event, dispute: Stripe.Dispute, deps: Deps): Promise<Outcome> {
  const paymentIntent = idOf(dispute.payment_intent);
  if (!paymentIntent) return "ignored";
  const due = dispute.evidence_details?.due_by;
  const { data, error } = await deps.admin.rpc("record_dispute_event", {
    p_event_id: event.id,
    p_event_type: event.type,
    p_event_created: new Date(event.created * 1000).toISOString(),
    p_dispute_id: dispute.id,
    p_payment_intent_id: paymentIntent,
    p_charge_id: idOf(dispute.charge),
    p_status: dispute.status,
    p_reason: dispute.reason ?? null,
    p_amount: dispute.amount ?? null,
    p_currency: dispute.currency ?? null,
    p_evidence_due_by: due ? new Date(due * 1000).toISOString() : null,
  });
  if (error) throw new RetryableError(`Recording ${event.type} ${event.id} failed: ${error.message}`);
  const outcome = data as Outcome;
  if (outcome === "ignored") {
    // No order has this payment: another site's, or ours whose checkout event is still on its way
    // (Stripe delivers in no set order), which a later delivery of this event will find.
    if (await sessionOf(deps.stripe, paymentIntent))
      throw new RetryableError(`${event.type} ${event.id}: the order of ${paymentIntent} is not recorded yet`);
    return "ignored";
  }
  if (deps.mail) await notifyDispute(dispute, deps.admin, deps.mail);
  return outcome;
}

/** E-mails the business about a dispute, once (notifyOnce), with its order's program and buyer. */
async function notifyDispute(dispute: Stripe.Dispute, admin: SupabaseClient, mail: Env): Promise<void> {
  const row = {
    table: "stripe_disputes",
    column: "dispute_id",
    key: dispute.id,
    what: `dispute ${dispute.id}`,
  } as const;
  await notifyOnce(admin, mail, row, `dispute-${dispute.id}`, async () => {
    const { data, error } = await admin
      .from("stripe_disputes")
      .select("checkout_session_id, status, evidence_due_by")
      .eq("dispute_id", dispute.id)
      .single();
    if (error) throw new Error(error.message);
    const recorded = data as { checkout_session_id: string; status: string; evidence_due_by: string | null };
    const evidence = await admin.rpc("dispute_evidence", { p_checkout_session_id: recorded.checkout_session_id });
    if (evidence.error) throw new Error(evidence.error.message);
    const buyer = (evidence.data ?? {}) as { email?: string; product_key?: string };
    const product = CATALOGUE.find((p) => p.key === buyer.product_key);
    return disputeEmail(BUSINESS_EMAIL, {
      disputeId: dispute.id,
      status: recorded.status,
      reason: dispute.reason ?? null,
      programName: product?.name ?? buyer.product_key ?? "a program",
      reference: await orderReference(recorded.checkout_session_id),
      email: buyer.email ?? null,
      amountCents: dispute.amount ?? null,
      currency: dispute.currency ?? null,
      evidenceDueBy: recorded.evidence_due_by,
      livemode: dispute.livemode,
    });
  });
}

export async function processEvent(event: Stripe.Event, deps: Deps): Promise<Outcome> {
  if (!handled.has(event.type)) return "ignored";
  if ((PLAN_EVENTS as readonly string[]).includes(event.type)) return recordPlanEvent(event, deps);
  if (event.type.startsWith("charge.dispute.")) return recordDispute(event, event.data.object as Stripe.Dispute, deps);
  if (event.type === "charge.refunded") {
    const charge = event.data.object;
    // A partial refund leaves the program with the buyer.
    if (!charge.refunded) return "ignored";
    const ours = await sessionOf(deps.stripe, charge.payment_intent);
    return ours ? recordSession(event, ours.session, "refunded", deps, charge) : "ignored";
  }
  if (event.type === "refund.failed") {
    // The card could not take the money back (closed, lost…): Stripe returns it to the balance, and
    // the business must pay the buyer back another way. The order stays as the refund left it.
    const refund = event.data.object;
    const ours = await sessionOf(deps.stripe, refund.payment_intent);
    if (!ours) return "ignored";
    const problem = `the refund ${refund.id} of ${refund.amount} ${refund.currency} failed (${refund.failure_reason ?? "no reason given"}); the buyer has not been paid back`;
    return holdForReview(event, ours.session, ours.product, problem, deps, {
      amount: refund.amount,
      currency: refund.currency,
    });
  }
  const session = event.data.object as Stripe.Checkout.Session;
  const status = statusFor(event.type, session);
  if (!status) return "ignored";
  return recordSession(event, session, status, deps);
}
