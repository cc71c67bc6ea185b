/**
 * Payment plans (docs/coached-offers.md, "Paying over time"): a coached offer paid by monthly
 * instalments is a Stripe subscription opened by the offer's checkout (functions/offer/handler.ts,
 * `subscription` mode, its metadata naming the offer and the plan). The webhook
 *
 * - opens the plan's row (supabase/migrations/*_payment_plans.sql) from the first of its events to
 *   arrive, with its payments dated from the subscription's start (packages/shared/payment-schedule.ts),
 *   and links it to the checkout's order once that is recorded;
 * - makes the subscription end after the last payment: a subscription schedule made from it, whose
 *   phases last the plan's months and whose `end_behavior` is `cancel` (Stripe's docs, "Subscription
 *   schedules": `from_subscription`, then the phases; API 2026-10-28.endive sets a phase's length
 *   with `duration`). Payments of differing amounts (an offer sent at another price, its odd cents
 *   on the first) are one phase per run of equal amounts;
 * - counts each paid invoice once (`invoice.paid`), when it paid the plan's next payment as
 *   scheduled (another amount or currency is held for review, as a checkout's would be, and counts
 *   for nothing), marks a failed one past due from when it fell
 *   due (`invoice.payment_failed`), e-mailing the buyer the invoice's own page to pay it on its
 *   first failure, and notes Stripe's time and the end of the subscription
 *   (`customer.subscription.updated`, `.deleted`).
 *
 * Events of subscriptions that are not an offer's plan are ignored. Every step is idempotent: a
 * redelivery, or events in another order, give the same row.
 */
import { addDays, dayIn } from "../../packages/shared/cohort.ts";
import { type Payment, planSchedule } from "../../packages/shared/payment-schedule.ts";
import type { PaymentOption } from "../../packages/shared/offer-options.ts";
import { CATALOGUE, TIME_ZONE } from "../_shared/catalogue.ts";
import { planPaymentFailedEmail } from "../_shared/emails.ts";
import { sendEmail } from "../_shared/mail.ts";
import { offerStripeKeys, optionOf } from "../_shared/offers.ts";
import { idOf, type Stripe } from "../_shared/stripe.ts";
import { recordMembershipEvent } from "./memberships.ts";
import { type Deps, holdForReview, type Outcome, RetryableError, sentOffer } from "./process.ts";

/** The events about a plan after its checkout; DEPLOY.md registers them with the others. */
export const PLAN_EVENTS = [
  "invoice.paid",
  "invoice.payment_failed",
  "customer.subscription.updated",
  "customer.subscription.deleted",
] as const satisfies readonly Stripe.Event.Type[];

/** Days a payment may be past due before access pauses (supabase/migrations/*_payment_plans.sql `plan_grace`). */
export const GRACE_DAYS = 14;

const at = (seconds: number) => new Date(seconds * 1000).toISOString();

/** What a plan is opened from: its subscription, as the checkout or an invoice names it. */
interface PlanSource {
  subscriptionId: string;
  customerId: string;
  metadata: Record<string, string>;
  currency: string;
  /** When the subscription started (Unix seconds): the first payment's day. */
  startedAt: number;
  /** Stripe's time of the event (Unix seconds). */
  eventAt: number;
}

/** The plan option the subscription's offer was bought with, and the offer's program; null for any other subscription. */
async function planOption(
  deps: Deps,
  metadata: Record<string, string>,
): Promise<{
  option: Extract<PaymentOption, { kind: "plan" }>;
  offerId: string;
  offerKey: string;
  productKey: string;
} | null> {
  const data = await sentOffer(deps.admin, metadata.offer_id);
  if (!data) return null;
  const option = optionOf(data.payment, metadata.offer_option);
  return option?.kind === "plan"
    ? { option, offerId: data.id, offerKey: data.offer_key, productKey: data.product_key }
    : null;
}

/** The plan option an offer's subscription was bought with (`planOption`). */
type PlanOption = NonNullable<Awaited<ReturnType<typeof planOption>>>;

/** Opens the plan's row, once; answers its option, or null when the subscription is not an offer's plan. */
async function openPlan(deps: Deps, source: PlanSource): Promise<PlanOption | null> {
  const plan = await planOption(deps, source.metadata);
  if (!plan) return null;
  const payments: Payment[] = planSchedule(
    plan.option.instalmentsCents,
    dayIn(TIME_ZONE, new Date(source.startedAt * 1000)),
  );
  const { error } = await deps.admin.rpc("plan_open", {
    p_subscription_id: source.subscriptionId,
    p_customer_id: source.customerId,
    p_offer_id: plan.offerId,
    p_product_key: plan.productKey,
    p_name: plan.option.name,
    p_payments: payments,
    p_currency: source.currency,
    p_at: at(source.eventAt),
  });
  if (error) throw new RetryableError(`Opening the plan of ${source.subscriptionId} failed: ${error.message}`);
  return plan;
}

/**
 * The plan's checkout is recorded (functions/stripe-webhook/process.ts `recordSession`): its row
 * opened and linked to the order, and its subscription made to end after the last payment.
 */
export async function recordPlanCheckout(
  event: Stripe.Event,
  session: Stripe.Checkout.Session,
  deps: Deps,
): Promise<void> {
  const subscriptionId = idOf(session.subscription);
  const customerId = idOf(session.customer);
  if (!subscriptionId || !customerId) return;
  const opened = await openPlan(deps, {
    subscriptionId,
    customerId,
    metadata: session.metadata ?? {},
    currency: session.currency ?? "usd",
    startedAt: session.created,
    eventAt: event.created,
  });
  if (!opened) return;
  const { error } = await deps.admin.rpc("plan_link_checkout", {
    p_subscription_id: subscriptionId,
    p_checkout_session_id: session.id,
  });
  if (error) throw new RetryableError(`Linking the plan of ${subscriptionId} failed: ${error.message}`);
  await endAfterLastPayment(deps, subscriptionId, opened);
}

/** Runs of equal amounts, in order: [600000 × 6] is one run, [516670, 516666 × 5] two. */
export function runsOf(amounts: readonly number[]): { amount: number; months: number }[] {
  const runs: { amount: number; months: number }[] = [];
  for (const amount of amounts) {
    const last = runs.at(-1);
    if (last && last.amount === amount) last.months += 1;
    else runs.push({ amount, months: 1 });
  }
  return runs;
}

/**
 * Makes the plan's subscription end after its last payment, once: a schedule from the
 * subscription (none yet), whose phases last the plan's months and then cancel it. The first phase
 * keeps the subscription's price; a later run of another amount gets an inline monthly price of the
 * offer's product.
 */
async function endAfterLastPayment(deps: Deps, subscriptionId: string, plan: PlanOption): Promise<void> {
  const { stripe } = deps;
  try {
    const subscription = await stripe.subscriptions.retrieve(subscriptionId);
    if (subscription.schedule || subscription.status === "canceled") return;
    const item = subscription.items.data[0];
    if (!item) return;
    const schedule = await stripe.subscriptionSchedules.create(
      { from_subscription: subscriptionId },
      { idempotencyKey: `plan-schedule-${subscriptionId}` },
    );
    const { product } = offerStripeKeys(plan.offerKey);
    const phases = runsOf(plan.option.instalmentsCents).map((run, i) => ({
      items: [
        i === 0 && run.amount === item.price.unit_amount
          ? { price: item.price.id, quantity: 1 }
          : {
              price_data: {
                currency: item.price.currency,
                product,
                unit_amount: run.amount,
                recurring: { interval: "month" as const },
              },
              quantity: 1,
            },
      ],
      ...(i === 0 ? { start_date: schedule.phases[0]!.start_date } : {}),
      duration: { interval: "month" as const, interval_count: run.months },
    }));
    await stripe.subscriptionSchedules.update(
      schedule.id,
      { end_behavior: "cancel", phases },
      { idempotencyKey: `plan-phases-${subscriptionId}` },
    );
  } catch (error) {
    throw new RetryableError(`Ending ${subscriptionId} after its last payment failed: ${(error as Error).message}`);
  }
}

/** The plan's row, opened from its subscription at Stripe when its checkout has not been recorded yet; false when it is not an offer's plan. */
async function ensurePlan(deps: Deps, subscriptionId: string, eventAt: number): Promise<boolean> {
  const { data, error } = await deps.admin
    .from("payment_plans")
    .select("subscription_id")
    .eq("subscription_id", subscriptionId)
    .maybeSingle();
  if (error) throw new RetryableError(`Reading the plan of ${subscriptionId} failed: ${error.message}`);
  if (data) return true;
  let subscription: Stripe.Subscription;
  try {
    subscription = await deps.stripe.subscriptions.retrieve(subscriptionId);
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return false;
    throw new RetryableError(`Reading ${subscriptionId} at Stripe failed: ${(error as Error).message}`);
  }
  const customerId = idOf(subscription.customer);
  if (!customerId) return false;
  return (
    (await openPlan(deps, {
      subscriptionId,
      customerId,
      metadata: subscription.metadata ?? {},
      currency: subscription.currency,
      startedAt: subscription.start_date,
      eventAt,
    })) !== null
  );
}

/**
 * Holds for review a paid invoice that is not the plan's next payment as scheduled (an amount or a
 * currency changed at Stripe, outside the product), as a checkout of the wrong amount is held; null
 * when it is that payment, or was counted already.
 */
async function unexpectedPayment(
  event: Stripe.Event,
  invoice: Stripe.Invoice,
  subscriptionId: string,
  deps: Deps,
): Promise<Outcome | null> {
  const { data, error } = await deps.admin
    .from("payment_plans")
    .select("payments, paid_invoices, currency, product_key, checkout_session_id, offer_id")
    .eq("subscription_id", subscriptionId)
    .single();
  if (error) throw new RetryableError(`Reading the plan of ${subscriptionId} failed: ${error.message}`);
  const plan = data as {
    payments: Payment[];
    paid_invoices: string[];
    currency: string;
    product_key: string;
    checkout_session_id: string | null;
    offer_id: string | null;
  };
  if (plan.paid_invoices.includes(invoice.id!)) return null;
  const expected = plan.payments[plan.paid_invoices.length]?.amountCents ?? null;
  if (expected === invoice.amount_paid && invoice.currency === plan.currency) return null;
  const product = CATALOGUE.find((p) => p.key === plan.product_key);
  // Held against the plan's checkout; one not recorded yet is waited for (Stripe delivers again).
  if (!product || !plan.checkout_session_id) {
    throw new RetryableError(
      `${invoice.id} paid ${invoice.amount_paid}, not the plan's next payment; its checkout is not recorded yet`,
    );
  }
  const problem =
    expected === null
      ? `invoice ${invoice.id} paid ${invoice.amount_paid} ${invoice.currency} after the plan's last payment`
      : `invoice ${invoice.id} paid ${invoice.amount_paid} ${invoice.currency}; the plan's next payment is ${expected} ${plan.currency}`;
  return holdForReview(
    event,
    {
      id: plan.checkout_session_id,
      customer: invoice.customer as string,
      customer_email: invoice.customer_email,
      metadata: plan.offer_id ? { offer_id: plan.offer_id } : {},
    },
    product,
    problem,
    deps,
    { amount: invoice.amount_paid, currency: invoice.currency },
    expected,
  );
}

/** The subscription an invoice bills, as API 2026-10-28.endive names it (`parent.subscription_details`). */
const subscriptionOf = (invoice: Stripe.Invoice): string | null =>
  idOf(invoice.parent?.subscription_details?.subscription ?? null);

/** Records an event of PLAN_EVENTS about a plan; "ignored" for any other subscription. */
export async function recordPlanEvent(event: Stripe.Event, deps: Deps): Promise<Outcome> {
  const log = deps.log ?? ((m: string) => console.warn(m));
  if (event.type === "customer.subscription.updated" || event.type === "customer.subscription.deleted") {
    const subscription = event.data.object as Stripe.Subscription;
    if (await recordMembershipEvent(event, deps)) return "recorded";
    if (!(await ensurePlan(deps, subscription.id, event.created))) return "ignored";
    const { error } = await deps.admin.rpc("plan_seen", {
      p_subscription_id: subscription.id,
      p_at: at(event.created),
      p_ended: event.type === "customer.subscription.deleted",
    });
    if (error) throw new RetryableError(`Recording ${event.type} ${event.id} failed: ${error.message}`);
    return "recorded";
  }
  if (await recordMembershipEvent(event, deps)) return "recorded";
  const invoice = event.data.object as Stripe.Invoice;
  const subscriptionId = subscriptionOf(invoice);
  if (!subscriptionId || !invoice.id || !(await ensurePlan(deps, subscriptionId, event.created))) {
    log(`Skipped ${event.type} ${event.id}: not an invoice of a coached offer's plan.`);
    return "ignored";
  }
  if (event.type === "invoice.paid") {
    const held = await unexpectedPayment(event, invoice, subscriptionId, deps);
    if (held) return held;
    const { error } = await deps.admin.rpc("plan_invoice_paid", {
      p_subscription_id: subscriptionId,
      p_invoice_id: invoice.id,
      p_at: at(event.created),
    });
    if (error) throw new RetryableError(`Recording ${event.type} ${event.id} failed: ${error.message}`);
    return "recorded";
  }
  // invoice.payment_failed: past due from when the invoice was made (Stripe charges it then).
  const { data, error } = await deps.admin.rpc("plan_invoice_failed", {
    p_subscription_id: subscriptionId,
    p_invoice_id: invoice.id,
    p_due_at: at(invoice.created),
    p_at: at(event.created),
  });
  if (error) throw new RetryableError(`Recording ${event.type} ${event.id} failed: ${error.message}`);
  const plan = data as { past_due_invoice: string | null; product_key: string } | null;
  // The buyer hears of it once, on the invoice's first failure; Stripe's retries follow unannounced.
  if (deps.mail && plan?.past_due_invoice === invoice.id && invoice.attempt_count <= 1 && invoice.customer_email) {
    const program = CATALOGUE.find((p) => p.key === plan.product_key);
    const payUrl = invoice.hosted_invoice_url;
    if (program && payUrl) {
      const email = planPaymentFailedEmail(invoice.customer_email, {
        programName: program.name,
        amountCents: invoice.amount_due,
        currency: invoice.currency,
        payUrl,
        pausesOn: addDays(dayIn(TIME_ZONE, new Date(invoice.created * 1000)), GRACE_DAYS),
      });
      try {
        await sendEmail(deps.mail, email, `plan-failed-${invoice.id}`);
      } catch (error) {
        throw new RetryableError(`The past-due e-mail of ${invoice.id} waits for a retry: ${(error as Error).message}`);
      }
    }
  }
  return "recorded";
}
