/**
 * Stripe Billing in the stand-in, as Stripe runs it, with the events each step sends:
 * - saved cards: a card paid with in subscription mode, or with `setup_future_usage`, becomes a
 *   PaymentMethod attached to the customer (`payment_method.attached`); the test card
 *   4000 0000 0000 0341 attaches, and every charge of it fails (docs: Testing, "Decline after
 *   attaching": "Attaching this card to a Customer object succeeds, but attempts to charge the
 *   customer fail");
 * - subscriptions: made `incomplete` with their first invoice (`subscription_create`), which is
 *   finalized and charged at once; paid, the subscription is `active`. At each period's end a
 *   renewal invoice (`subscription_cycle`) is made as a draft and finalized and charged an hour
 *   later (docs: Subscription invoices, where Stripe waits about an hour after a renewal's
 *   invoice is made before it finalizes and charges it; Invoice `automatically_finalizes_at`,
 *   "The time when this invoice is currently scheduled to be automatically finalized"), to the
 *   subscription's default payment method, else the
 *   customer's (docs: Automate payment retries, "Payment method ordering");
 * - failed payments: the invoice stays `open` with `attempt_count` and `next_payment_attempt`, the
 *   subscription goes `past_due`, and Stripe retries on the account's schedule (RETRY_DAYS); after
 *   the last retry the subscription is canceled (the "Manage failed payments" setting, below). A
 *   paid invoice brings a past-due subscription back to `active`;
 * - subscription schedules: phases with dates (`duration` in intervals, since 2025-09-30.clover
 *   the phase's length; `iterations` is gone), a schedule that starts later makes its subscription
 *   at its start date, a phase's end moves to the next phase's items, and the last phase's end
 *   does what `end_behavior` says (`cancel`: the subscription ends, `cancel_at` set from the
 *   schedule; `release`: the subscription goes on without it);
 * - test clocks: a clock's customers and their objects live at its frozen time; advancing it runs,
 *   in time order, everything due up to the new time, and objects off any clock run on the wall
 *   clock the same way each time the stand-in is asked anything (`sweep`).
 * Everything is derived from the objects in the store (period ends, `automatically_finalizes_at`,
 * `next_payment_attempt`, a clock `advancing` to its `target_frozen_time`), so a restart resumes
 * it. Dev and test only.
 */
import * as billingObjects from "./billing-objects.ts";
import * as objects from "./objects.ts";
import { invalid, noSuch, StripeError } from "./params.ts";
import type { Decline, Origin, PayInput } from "./payments.ts";
import { NO_REQUEST } from "./payments.ts";
import type { Receipts } from "./receipts.ts";
import { newId, type Store, type StripeObject } from "./store.ts";

/**
 * The retry schedule the stand-in runs. A new account has Smart Retries on (docs: Automate payment
 * retries, "We enable Smart Retries by default for new Stripe accounts"; "The recommended default
 * is 8 tries within 2 weeks", docs: Smart Retries on off-session payments), whose times are
 * chosen by a model and cannot be reproduced. The stand-in runs the documented alternative
 * instead, a custom retry schedule (same page, "Custom retry schedule"; the Dashboard offers up to
 * three retries, each 1, 3, 5 or 7 days after the previous attempt, as the stand-in read it): 3,
 * 5 and 7 days.
 */
export const RETRY_DAYS = [3, 5, 7];

/**
 * What happens when the last retry fails, as the account is set: the Dashboard offers cancel the
 * subscription (a new account's choice, as the stand-in read it), mark it unpaid, or leave it past
 * due (Billing, Manage failed payments). DEPLOY.md sets "leave the subscription past-due" for this
 * product: a coached offer's plan keeps billing its later payments, and the late one can still be
 * paid on its invoice's page (docs/coached-offers.md), which a canceled plan would not allow. So
 * the stand-in leaves it past due, and goes on billing its later periods.
 */
export type AfterLastRetry = "cancel" | "past_due";
export const AFTER_LAST_RETRY: AfterLastRetry = "past_due";

/** How long after it is made a renewal's draft invoice is finalized and charged (docs: Subscription invoices). */
const FINALIZE_AFTER_S = 60 * 60;

const DAY_S = 24 * 60 * 60;

/** Stripe's words for an invoice of a customer with no card to charge (`invoices.pay` refuses with them). */
const NO_PAYMENT_METHOD_MESSAGE =
  "This customer has no attached payment source or default payment method. Please consider adding a default payment method.";

/** An automatic attempt with no card to charge: no charge is made, and it is not retried. */
const NO_PAYMENT_METHOD: Decline = { code: "no_payment_method", declineCode: null, message: NO_PAYMENT_METHOD_MESSAGE };

export type Interval = "day" | "week" | "month" | "year";

const EXPIRES = { expMonth: 12, expYear: new Date().getUTCFullYear() + 3 };

/**
 * Stripe's test PaymentMethods that attaching makes a card of (docs: Testing, "PaymentMethods":
 * `pm_card_visa`, `pm_card_mastercard`; "Decline after attaching":
 * `pm_card_chargeDeclinedAfterAttaching`, the card 4000 0000 0000 0341).
 */
const TEST_PAYMENT_METHODS: Record<string, { card: objects.Card; declinesLater?: Decline }> = {
  pm_card_visa: { card: { brand: "visa", last4: "4242", funding: "credit", ...EXPIRES } },
  pm_card_mastercard: { card: { brand: "mastercard", last4: "4444", funding: "credit", ...EXPIRES } },
  pm_card_chargeDeclinedAfterAttaching: {
    card: { brand: "visa", last4: "0341", funding: "credit", ...EXPIRES },
    declinesLater: { code: "card_declined", declineCode: "generic_decline", message: "Your card was declined." },
  },
};

/**
 * `count` intervals after `from`, as Stripe bills: a month keeps the anchor's day and time, or the
 * month's last day when it has fewer (docs: Billing cycle: an anchor on January 31 bills on the
 * last day of February, then on March 31).
 */
export function addInterval(from: number, interval: Interval, count: number, anchor = from): number {
  if (interval === "day") return from + count * DAY_S;
  if (interval === "week") return from + count * 7 * DAY_S;
  const start = new Date(from * 1000);
  const anchorDay = new Date(anchor * 1000).getUTCDate();
  const months = interval === "year" ? 12 * count : count;
  const target = new Date(
    Date.UTC(
      start.getUTCFullYear(),
      start.getUTCMonth() + months,
      1,
      start.getUTCHours(),
      start.getUTCMinutes(),
      start.getUTCSeconds(),
    ),
  );
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(anchorDay, lastDay));
  return Math.floor(target.getTime() / 1000);
}

interface Recurring {
  interval: Interval;
  interval_count: number;
}

const recurringOf = (price: StripeObject) => price.recurring as Recurring;

/** The end of the period that starts at `start` for a subscription anchored at `anchor`. */
function periodEnd(anchor: number, start: number, recurring: Recurring): number {
  let n = 1;
  let end = addInterval(anchor, recurring.interval, recurring.interval_count * n, anchor);
  while (end <= start) {
    n += 1;
    end = addInterval(anchor, recurring.interval, recurring.interval_count * n, anchor);
  }
  return end;
}

type Items = Record<string, unknown>[];
const itemsOf = (sub: StripeObject) => (sub.items as { data: Items }).data;
const periodOf = (sub: StripeObject) => {
  const first = itemsOf(sub)[0]!;
  return { start: first.current_period_start as number, end: first.current_period_end as number };
};

/** Subscriptions that still bill: Stripe's statuses before one ends. */
const LIVE = new Set(["active", "past_due", "incomplete", "trialing", "unpaid"]);

/** A phase's item as it is asked for: a price and how many. */
export interface PhaseItem {
  price: string;
  quantity: number;
}

/** A phase as it is asked for: its items and how long it lasts (an end date, or a duration in intervals). */
export interface PhaseInput {
  items: PhaseItem[];
  startDate?: number | "now";
  endDate?: number | "now";
  duration?: { interval: Interval; intervalCount: number };
  defaultPaymentMethod?: string;
  metadata?: Record<string, string>;
}

export interface BillingContext {
  store: Store;
  emit(type: string, object: StripeObject, origin: Origin, previous?: Record<string, unknown>, created?: number): void;
  receipts: Receipts;
  brand: string;
  /** The hosted invoice page of an invoice. */
  invoiceUrl(invoiceId: string): string;
}

export interface Billing {
  /** The time of a customer: its test clock's frozen time, or now. */
  timeOf(customerId: string | null | undefined): number;
  /** Saves a card paid with as a PaymentMethod, attached to `customer` when given (`payment_method.attached`). */
  saveCard(customer: string | null, input: PayInput, paymentMethodId?: string): StripeObject;
  /** Attaches a PaymentMethod (or a test one, `pm_card_visa`…) to a customer (PaymentMethods attach). */
  attach(paymentMethod: string, customer: string, origin: Origin): StripeObject;
  /** The subscription-mode session's payment: customer, card, subscription and its paid first invoice. */
  checkout(session: StripeObject, input: PayInput, paymentMethodId: string): void;
  updateSubscription(
    id: string,
    changes: { cancelAtPeriodEnd?: boolean; defaultPaymentMethod?: string | null; metadata?: Record<string, string> },
    origin: Origin,
  ): StripeObject;
  cancelSubscription(id: string, origin: Origin): StripeObject;
  /** Pays an open invoice now, with `paymentMethod` or the subscription's; a decline is a card error. */
  payInvoice(id: string, paymentMethod: string | undefined, origin: Origin): StripeObject;
  scheduleFromSubscription(
    subscriptionId: string,
    metadata: Record<string, string> | undefined,
    origin: Origin,
  ): StripeObject;
  createSchedule(
    input: {
      customer: string;
      startDate: number | "now";
      endBehavior: string;
      phases: PhaseInput[];
      defaultPaymentMethod: string | null;
      metadata: Record<string, string>;
    },
    origin: Origin,
  ): StripeObject;
  updateSchedule(
    id: string,
    changes: {
      endBehavior?: string;
      phases?: PhaseInput[];
      defaultPaymentMethod?: string;
      metadata?: Record<string, string>;
    },
    origin: Origin,
  ): StripeObject;
  cancelSchedule(id: string, origin: Origin): StripeObject;
  releaseSchedule(id: string, origin: Origin): StripeObject;
  createClock(frozenTime: number, name: string | null, origin: Origin): StripeObject;
  /** Starts advancing a clock: answered `advancing`, then `ready` once what was due has run. */
  advanceClock(id: string, frozenTime: number, origin: Origin): StripeObject;
  deleteClock(id: string, origin: Origin): { id: string; object: string; deleted: true };
  /** Runs what is due on the wall clock (objects on no test clock). */
  sweep(): void;
  /** Whether a clock is advancing. */
  waiting(): boolean;
  /** Resolves when no clock is advancing. */
  idle(): Promise<void>;
  close(): void;
}

export function createBilling(ctx: BillingContext): Billing {
  const { store, emit, receipts } = ctx;
  const timers = new Set<NodeJS.Timeout>();
  let idleWaiters: (() => void)[] = [];
  let closed = false;

  const clockOfCustomer = (customerId: string | null | undefined) => {
    const customer = customerId ? store.get("customer", customerId) : undefined;
    return customer?.test_clock ? store.get("test_helpers.test_clock", customer.test_clock as string) : undefined;
  };
  const timeOf = (customerId: string | null | undefined) =>
    (clockOfCustomer(customerId)?.frozen_time as number | undefined) ?? objects.now();

  const mustGet = (collection: "subscription" | "invoice" | "subscription_schedule", id: string) => {
    const found = store.get(collection, id);
    if (!found) throw noSuch(collection, id);
    return found;
  };

  /** The attributes that changed, for an `*.updated` event's `previous_attributes`. */
  function previousOf(before: StripeObject, after: StripeObject): Record<string, unknown> {
    const previous: Record<string, unknown> = {};
    for (const key of Object.keys(after)) {
      if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) previous[key] = before[key];
    }
    return previous;
  }

  /** Emits `customer.subscription.updated` when the subscription changed since `before`. */
  function subscriptionUpdated(before: StripeObject, sub: StripeObject, origin: Origin, at: number) {
    const previous = previousOf(before, sub);
    if (Object.keys(previous).length > 0) emit("customer.subscription.updated", sub, origin, previous, at);
  }

  // ------------------------------------------------------------ payment methods

  function saveCard(customer: string | null, input: PayInput, paymentMethodId?: string): StripeObject {
    if (input.method.type !== "card") {
      throw invalid("The local Stripe stand-in saves only cards for later payments.", "payment_method_types");
    }
    const at = timeOf(customer);
    const made = billingObjects.paymentMethod({
      id: paymentMethodId,
      card: input.method.card,
      email: input.email,
      name: input.name,
      customer,
      created: at,
    });
    store.put("payment_method", made);
    if (input.declinesLater) store.state.testing.declinesLater[made.id] = input.declinesLater;
    if (customer) emit("payment_method.attached", made, NO_REQUEST, undefined, at);
    return made;
  }

  /** The payment method a subscription's invoices are charged to (docs: "Payment method ordering"). */
  function chargeableMethod(sub: StripeObject | undefined, customer: StripeObject): string | null {
    return (
      (sub?.default_payment_method as string | null | undefined) ??
      (customer.invoice_settings as { default_payment_method: string | null }).default_payment_method ??
      null
    );
  }

  // ------------------------------------------------------------ invoices and their payments

  const subscriptionOfInvoice = (inv: StripeObject) => {
    const details = (inv.parent as { subscription_details: { subscription: string } | null } | null)
      ?.subscription_details;
    return details ? store.get("subscription", details.subscription) : undefined;
  };

  const paymentOf = (inv: StripeObject) => store.all("invoice_payment").find((p) => p.data.invoice === inv.id)?.data;

  /** The PaymentIntent that pays the invoice, made at its first attempt with its InvoicePayment. */
  function intentFor(inv: StripeObject, at: number): StripeObject {
    const existing = paymentOf(inv);
    if (existing) {
      return store.get("payment_intent", (existing.payment as { payment_intent: string }).payment_intent)!;
    }
    const intent = objects.paymentIntent({
      amount: inv.amount_due as number,
      currency: inv.currency as string,
      customer: inv.customer as string,
      metadata: {},
    });
    intent.created = at;
    // Stripe's descriptions of a subscription's payments.
    intent.description = inv.billing_reason === "subscription_create" ? "Subscription creation" : "Subscription update";
    intent.payment_method_types = ["card"];
    intent.payment_method_options = {
      card: { installments: null, mandate_options: null, network: null, request_three_d_secure: "automatic" },
    };
    store.put("payment_intent", intent);
    store.put(
      "invoice_payment",
      billingObjects.invoicePayment({ invoice: inv, paymentIntent: intent.id, created: at }),
    );
    emit("payment_intent.created", intent, NO_REQUEST, undefined, at);
    return intent;
  }

  /** Finalizes a draft: its number, its hosted page, `open` (`invoice.finalized`). */
  function finalize(inv: StripeObject, at: number, origin: Origin) {
    const customer = store.get("customer", inv.customer as string)!;
    const sequence = customer.next_invoice_sequence as number;
    customer.next_invoice_sequence = sequence + 1;
    inv.number = `${String(customer.invoice_prefix)}-${String(sequence).padStart(4, "0")}`;
    inv.status = "open";
    inv.automatically_finalizes_at = null;
    inv.effective_at = at;
    inv.ending_balance = 0;
    inv.hosted_invoice_url = ctx.invoiceUrl(inv.id);
    (inv.status_transitions as Record<string, number | null>).finalized_at = at;
    emit("invoice.finalized", inv, origin, undefined, at);
  }

  type AttemptKind = "automatic" | "manual";

  /** Charges a saved card for the invoice's PaymentIntent: the charge succeeds, or fails with the card's decline. */
  function chargeCard(
    inv: StripeObject,
    paymentMethod: StripeObject,
    customer: StripeObject,
    at: number,
    origin: Origin,
  ): Decline | null {
    const intent = intentFor(inv, at);
    const decline = store.state.testing.declinesLater[paymentMethod.id] ?? null;
    const card = paymentMethod.card as {
      brand: string;
      last4: string;
      exp_month: number;
      exp_year: number;
      funding: string;
    };
    const details = paymentMethod.billing_details as { email: string | null; name: string | null };
    const made = objects.charge({
      intent,
      method: {
        type: "card",
        card: {
          brand: card.brand,
          last4: card.last4,
          expMonth: card.exp_month,
          expYear: card.exp_year,
          funding: card.funding,
        },
      },
      paymentMethod: paymentMethod.id,
      email: details.email ?? (customer.email as string),
      name: details.name,
      status: decline ? "failed" : "succeeded",
      failure: decline ?? undefined,
      brand: ctx.brand,
    });
    made.created = at;
    made.customer = customer.id;
    made.description = intent.description;
    store.put("charge", made);
    intent.latest_charge = made.id;
    if (decline) {
      intent.status = "requires_payment_method";
      intent.payment_method = null;
      intent.last_payment_error = {
        charge: made.id,
        code: decline.code,
        ...(decline.declineCode ? { decline_code: decline.declineCode } : {}),
        doc_url: `https://stripe.com/docs/error-codes/${decline.code.replaceAll("_", "-")}`,
        message: decline.message,
        payment_method: structuredClone(paymentMethod),
        type: "card_error",
      };
      emit("charge.failed", made, origin, undefined, at);
      emit("payment_intent.payment_failed", intent, origin, undefined, at);
      return decline;
    }
    made.receipt_url = receipts.urlOf(made.id);
    intent.status = "succeeded";
    intent.payment_method = paymentMethod.id;
    intent.amount_received = intent.amount;
    intent.last_payment_error = null;
    emit("charge.succeeded", made, origin, undefined, at);
    emit("payment_intent.succeeded", intent, origin, undefined, at);
    receipts.paid(made);
    return null;
  }

  /**
   * One attempt to pay an open invoice. "Any payment attempt counts as the first attempt, and
   * subsequently only automatic retries increment the attempt count" (Invoice `attempt_count`). A
   * failed automatic attempt schedules the next retry (RETRY_DAYS), or after the last ends the
   * subscription (AFTER_LAST_RETRY); with no payment method there is no retry ("Stripe doesn't
   * retry payments if no payment methods are available", docs: Automate payment retries).
   */
  function attempt(inv: StripeObject, at: number, kind: AttemptKind, origin: Origin, method?: string): Decline | null {
    const sub = subscriptionOfInvoice(inv);
    const customer = store.get("customer", inv.customer as string)!;
    const paymentMethodId = method ?? chargeableMethod(sub, customer);
    const paymentMethod = paymentMethodId ? store.get("payment_method", paymentMethodId) : undefined;
    const counts = kind === "automatic" || (inv.attempt_count as number) === 0;
    inv.attempted = true;
    if (counts) inv.attempt_count = (inv.attempt_count as number) + 1;
    const decline = paymentMethod ? chargeCard(inv, paymentMethod, customer, at, origin) : NO_PAYMENT_METHOD;
    if (decline) {
      if (kind === "automatic") {
        const days = paymentMethod ? RETRY_DAYS[(inv.attempt_count as number) - 1] : undefined;
        inv.next_payment_attempt = days === undefined ? null : at + days * DAY_S;
      }
      emit("invoice.payment_failed", inv, origin, undefined, at);
      if (sub && LIVE.has(sub.status as string)) {
        const before = structuredClone(sub);
        if (sub.status === "active" || sub.status === "incomplete") sub.status = "past_due";
        subscriptionUpdated(before, sub, origin, at);
        if (kind === "automatic" && inv.next_payment_attempt === null && AFTER_LAST_RETRY === "cancel") {
          endSubscription(sub, at, origin, "payment_failed");
        }
      }
      return decline;
    }
    const payment = paymentOf(inv)!;
    payment.status = "paid";
    payment.amount_paid = inv.amount_due;
    (payment.status_transitions as Record<string, number | null>).paid_at = at;
    inv.amount_paid = inv.amount_due;
    inv.amount_remaining = 0;
    inv.status = "paid";
    inv.next_payment_attempt = null;
    (inv.status_transitions as Record<string, number | null>).paid_at = at;
    emit("invoice_payment.paid", payment, origin, undefined, at);
    emit("invoice.paid", inv, origin, undefined, at);
    emit("invoice.payment_succeeded", inv, origin, undefined, at);
    if (sub && (sub.status === "past_due" || sub.status === "incomplete" || sub.status === "unpaid")) {
      const before = structuredClone(sub);
      sub.status = "active";
      subscriptionUpdated(before, sub, origin, at);
    }
    return null;
  }

  /** A subscription's invoice for the period `[start, end)` of its items, made as a draft (`invoice.created`). */
  function makeInvoice(
    sub: StripeObject,
    reason: "subscription_create" | "subscription_cycle",
    at: number,
    usage: { start: number; end: number },
    origin: Origin,
    finalizesAt: number | null = null,
  ): StripeObject {
    const customer = store.get("customer", sub.customer as string)!;
    const id = newId("in");
    const lines = itemsOf(sub).map((item) => {
      const price = item.price as StripeObject;
      const product = store.get("product", price.product as string);
      return billingObjects.invoiceLine({
        invoice: id,
        subscription: sub.id,
        item,
        productName: (product?.name as string | undefined) ?? "",
        periodStart: item.current_period_start as number,
        periodEnd: item.current_period_end as number,
      });
    });
    const inv = billingObjects.invoice({
      id,
      customer,
      subscription: sub,
      lines,
      billingReason: reason,
      created: at,
      periodStart: usage.start,
      periodEnd: usage.end,
      accountName: ctx.brand,
    });
    inv.automatically_finalizes_at = finalizesAt;
    store.put("invoice", inv);
    emit("invoice.created", inv, origin, undefined, at);
    return inv;
  }

  // ------------------------------------------------------------ subscriptions

  /**
   * Makes a subscription of `items` from `at` (`customer.subscription.created`, `incomplete`) and
   * its first invoice, finalized and charged at once; paid, the subscription is `active`.
   */
  function startSubscription(input: {
    customer: string;
    items: { price: StripeObject; quantity: number }[];
    defaultPaymentMethod: string | null;
    metadata: Record<string, string>;
    description: string | null;
    schedule: string | null;
    at: number;
    origin: Origin;
  }): { subscription: StripeObject; invoice: StripeObject; decline: Decline | null } {
    const { at, origin } = input;
    const id = newId("sub");
    const recurring = recurringOf(input.items[0]!.price);
    const end = periodEnd(at, at, recurring);
    const sub = billingObjects.subscription({
      id,
      customer: input.customer,
      currency: input.items[0]!.price.currency as string,
      items: input.items.map(({ price, quantity }) =>
        billingObjects.subscriptionItem({
          price,
          quantity,
          subscription: id,
          created: at,
          periodStart: at,
          periodEnd: end,
        }),
      ),
      created: at,
      startDate: at,
      defaultPaymentMethod: input.defaultPaymentMethod,
      metadata: input.metadata,
      description: input.description,
      testClock: (clockOfCustomer(input.customer)?.id as string | undefined) ?? null,
      schedule: input.schedule,
    });
    store.put("subscription", sub);
    emit("customer.subscription.created", sub, origin, undefined, at);
    const inv = makeInvoice(sub, "subscription_create", at, { start: at, end: at }, origin);
    sub.latest_invoice = inv.id;
    finalize(inv, at, origin);
    const decline = attempt(inv, at, "automatic", origin);
    return { subscription: sub, invoice: inv, decline };
  }

  /**
   * Ends a subscription now: `canceled`, no longer collected ("By default, upon subscription
   * cancellation, Stripe stops automatic collection of all finalized invoices", Subscriptions
   * `cancel`), its schedule canceled with it (`customer.subscription.deleted`).
   */
  function endSubscription(sub: StripeObject, at: number, origin: Origin, reason: string) {
    sub.status = "canceled";
    sub.ended_at = at;
    sub.canceled_at ??= at;
    (sub.cancellation_details as Record<string, unknown>).reason ??= reason;
    for (const { data: inv } of store.all("invoice")) {
      if (subscriptionOfInvoice(inv)?.id === sub.id && inv.status === "open") {
        inv.auto_advance = false;
        inv.next_payment_attempt = null;
      }
    }
    emit("customer.subscription.deleted", sub, origin, undefined, at);
  }

  /** A subscription's period ends: the schedule's phase changes or ends, then a renewal invoice. */
  function periodEnds(sub: StripeObject, at: number) {
    const origin = NO_REQUEST;
    const schedule = sub.schedule ? store.get("subscription_schedule", sub.schedule as string) : undefined;
    if (sub.cancel_at_period_end || (sub.cancel_at !== null && (sub.cancel_at as number) <= at)) {
      endSubscription(sub, at, origin, "cancellation_requested");
      if (schedule && schedule.status === "active") completeSchedule(schedule, at, origin);
      return;
    }
    if (schedule && schedule.status === "active") {
      const phases = schedule.phases as Record<string, unknown>[];
      const phase = phases.find((p) => (p.start_date as number) <= at && at < (p.end_date as number));
      if (!phase) {
        if (schedule.end_behavior === "cancel") {
          endSubscription(sub, at, origin, "cancellation_requested");
          completeSchedule(schedule, at, origin);
          return;
        }
        release(schedule, sub, at, origin);
      } else if ((schedule.current_phase as { start_date: number }).start_date !== phase.start_date) {
        enterPhase(schedule, sub, phase, at, origin);
      }
    }
    renew(sub, at, origin);
  }

  /** The next period: the items' dates move on, and its invoice is made, to be charged in an hour. */
  function renew(sub: StripeObject, at: number, origin: Origin) {
    const before = structuredClone(sub);
    const previous = periodOf(sub);
    const recurring = recurringOf(itemsOf(sub)[0]!.price as StripeObject);
    const end = periodEnd(sub.billing_cycle_anchor as number, at, recurring);
    for (const item of itemsOf(sub)) {
      item.current_period_start = at;
      item.current_period_end = end;
    }
    const inv = makeInvoice(sub, "subscription_cycle", at, previous, origin, at + FINALIZE_AFTER_S);
    sub.latest_invoice = inv.id;
    subscriptionUpdated(before, sub, origin, at);
  }

  const priceOf = (id: string, param: string) => {
    const found = store.get("price", id);
    if (!found) throw noSuch("price", id, param);
    return found;
  };

  /** Replaces a subscription's items by a phase's, keeping the period (no proration: phases meet at period ends). */
  function applyItems(sub: StripeObject, items: PhaseItem[], at: number) {
    const current = itemsOf(sub);
    const same =
      current.length === items.length &&
      items.every(
        (wanted, i) =>
          (current[i]!.price as StripeObject).id === wanted.price && current[i]!.quantity === wanted.quantity,
      );
    if (same) return;
    const period = periodOf(sub);
    (sub.items as { data: Items; total_count: number }).data = items.map((item) =>
      billingObjects.subscriptionItem({
        price: priceOf(item.price, "phases"),
        quantity: item.quantity,
        subscription: sub.id,
        created: at,
        periodStart: period.start,
        periodEnd: period.end,
      }),
    );
    (sub.items as { total_count: number }).total_count = items.length;
  }

  // ------------------------------------------------------------ schedules

  const phaseItemsOf = (phase: Record<string, unknown>): PhaseItem[] =>
    (phase.items as { price: string; quantity: number }[]).map((i) => ({ price: i.price, quantity: i.quantity }));

  function enterPhase(
    schedule: StripeObject,
    sub: StripeObject,
    phase: Record<string, unknown>,
    at: number,
    origin: Origin,
  ) {
    const before = structuredClone(schedule);
    const subBefore = structuredClone(sub);
    schedule.current_phase = { end_date: phase.end_date, start_date: phase.start_date };
    applyItems(sub, phaseItemsOf(phase), at);
    if (phase.default_payment_method) sub.default_payment_method = phase.default_payment_method;
    emit("subscription_schedule.updated", schedule, origin, previousOf(before, schedule), at);
    subscriptionUpdated(subBefore, sub, origin, at);
  }

  function completeSchedule(schedule: StripeObject, at: number, origin: Origin) {
    schedule.status = "completed";
    schedule.completed_at = at;
    schedule.current_phase = null;
    emit("subscription_schedule.completed", schedule, origin, undefined, at);
  }

  /** The schedule lets go of its subscription, which goes on as it is (`subscription_schedule.released`). */
  function release(schedule: StripeObject, sub: StripeObject | undefined, at: number, origin: Origin) {
    schedule.status = "released";
    schedule.released_at = at;
    schedule.released_subscription = sub?.id ?? null;
    schedule.subscription = null;
    schedule.current_phase = null;
    emit("subscription_schedule.released", schedule, origin, undefined, at);
    if (sub) {
      const before = structuredClone(sub);
      sub.schedule = null;
      subscriptionUpdated(before, sub, origin, at);
    }
  }

  /** A schedule's start date: its subscription is made (charged at once) and the schedule is `active`. */
  function startSchedule(schedule: StripeObject, at: number, origin: Origin) {
    const before = structuredClone(schedule);
    const phase = (schedule.phases as Record<string, unknown>[])[0]!;
    const settings = schedule.default_settings as { default_payment_method: string | null };
    schedule.status = "active";
    schedule.current_phase = { end_date: phase.end_date, start_date: phase.start_date };
    const { subscription: sub } = startSubscription({
      customer: schedule.customer as string,
      items: phaseItemsOf(phase).map((item) => ({ price: priceOf(item.price, "phases"), quantity: item.quantity })),
      defaultPaymentMethod: (phase.default_payment_method as string | null) ?? settings.default_payment_method,
      metadata: (phase.metadata as Record<string, string> | null) ?? {},
      description: null,
      schedule: schedule.id,
      at,
      origin,
    });
    schedule.subscription = sub.id;
    syncCancelAt(schedule, sub);
    emit("subscription_schedule.updated", schedule, origin, previousOf(before, schedule), at);
  }

  /** A schedule that cancels at its end shows it on its subscription as `cancel_at` (Subscription `cancel_at`). */
  function syncCancelAt(schedule: StripeObject, sub: StripeObject) {
    const phases = schedule.phases as { end_date: number }[];
    sub.cancel_at = schedule.end_behavior === "cancel" ? phases.at(-1)!.end_date : null;
  }

  /**
   * Phases with their dates: each starts where the one before ends; a phase lasts its `end_date`,
   * or its `duration` in intervals, and the last one without either lasts one interval of its
   * first price (the former `iterations: 1` default).
   */
  function resolvePhases(inputs: PhaseInput[], start: number): Record<string, unknown>[] {
    let from = start;
    return inputs.map((phase, i) => {
      const param = `phases[${i}]`;
      if (phase.items.length === 0)
        throw invalid("Missing required param: phases[0][items].", `${param}[items]`, "parameter_missing");
      const prices = phase.items.map((item, j) => priceOf(item.price, `${param}[items][${j}][price]`));
      for (const [j, price] of prices.entries()) {
        if (price.type !== "recurring") {
          throw invalid(
            `The price \`${price.id}\` is a one-time price; phase items take recurring prices (add one-time prices with add_invoice_items).`,
            `${param}[items][${j}][price]`,
          );
        }
      }
      const phaseStart = typeof phase.startDate === "number" ? phase.startDate : from;
      if (phase.endDate !== undefined && phase.duration) {
        throw invalid("You may only specify one of these parameters: duration, end_date.", `${param}[duration]`);
      }
      let end: number;
      if (typeof phase.endDate === "number") end = phase.endDate;
      else if (phase.duration) end = addInterval(phaseStart, phase.duration.interval, phase.duration.intervalCount);
      else if (i < inputs.length - 1) {
        throw invalid(
          `Phase ${i} must have an \`end_date\` or a \`duration\`: only the last phase may leave its end out.`,
          param,
        );
      } else {
        const recurring = recurringOf(prices[0]!);
        end = addInterval(phaseStart, recurring.interval, recurring.interval_count);
      }
      if (end <= phaseStart) throw invalid("A phase's end must be after its start.", param);
      from = end;
      return billingObjects.schedulePhase({
        items: phase.items,
        currency: prices[0]!.currency as string,
        startDate: phaseStart,
        endDate: end,
        defaultPaymentMethod: phase.defaultPaymentMethod ?? null,
        metadata: phase.metadata,
      });
    });
  }

  const attachedTo = (customer: string, paymentMethod: string, param: string) => {
    const found = store.get("payment_method", paymentMethod);
    if (!found) throw noSuch("payment_method", paymentMethod, param);
    if (found.customer !== customer) {
      throw invalid(
        `The customer does not have a payment method with the ID ${paymentMethod}. The payment method must be attached to the customer.`,
        param,
      );
    }
  };

  const schedulable = (schedule: StripeObject, verb: string) => {
    if (schedule.status !== "not_started" && schedule.status !== "active") {
      throw invalid(
        `You cannot ${verb} a subscription schedule that is currently in the \`${String(schedule.status)}\` status. It must be in \`not_started\` or \`active\`.`,
      );
    }
  };

  // ------------------------------------------------------------ what is due, in time order

  interface Due {
    at: number;
    run: () => void;
  }

  /** The earliest thing due for the objects on `clock` (null: on no clock). */
  function nextDue(clock: string | null): Due | undefined {
    const due: Due[] = [];
    const onClock = (o: StripeObject) => (o.test_clock ?? null) === clock;
    for (const { data: schedule } of store.all("subscription_schedule")) {
      if (!onClock(schedule) || schedule.status !== "not_started") continue;
      const start = (schedule.phases as { start_date: number }[])[0]!.start_date;
      due.push({ at: start, run: () => startSchedule(schedule, start, NO_REQUEST) });
    }
    for (const { data: sub } of store.all("subscription")) {
      if (!onClock(sub) || !LIVE.has(sub.status as string) || sub.status === "incomplete") continue;
      const end = periodOf(sub).end;
      due.push({ at: end, run: () => periodEnds(sub, end) });
    }
    for (const { data: inv } of store.all("invoice")) {
      if (!onClock(inv)) continue;
      if (inv.status === "draft" && inv.automatically_finalizes_at !== null) {
        const at = inv.automatically_finalizes_at as number;
        due.push({
          at,
          run: () => {
            finalize(inv, at, NO_REQUEST);
            attempt(inv, at, "automatic", NO_REQUEST);
          },
        });
      } else if (inv.status === "open" && inv.next_payment_attempt !== null) {
        const at = inv.next_payment_attempt as number;
        due.push({ at, run: () => attempt(inv, at, "automatic", NO_REQUEST) });
      }
    }
    return due.sort((a, b) => a.at - b.at)[0];
  }

  /** Runs, in time order, what is due on `clock` up to `until`, each at its own time. */
  function runUntil(clock: StripeObject | null, until: number) {
    for (let next = nextDue(clock?.id ?? null); next && next.at <= until; next = nextDue(clock?.id ?? null)) {
      if (clock) clock.frozen_time = next.at;
      next.run();
    }
  }

  // ------------------------------------------------------------ test clocks

  /** The furthest a clock may go in one advance (TestClockAdvanceParams `frozen_time`). */
  function advanceLimit(clock: StripeObject): { limit: number; rule: string } {
    const from = clock.frozen_time as number;
    let limit: number | undefined;
    let rule = "two years (the clock has no subscriptions)";
    for (const { data: sub } of store.all("subscription")) {
      if (sub.test_clock !== clock.id || !LIVE.has(sub.status as string)) continue;
      const recurring = recurringOf(itemsOf(sub)[0]!.price as StripeObject);
      const reach = addInterval(from, recurring.interval, 2 * recurring.interval_count);
      if (limit === undefined || reach < limit) {
        limit = reach;
        rule = `two intervals (${recurring.interval_count} ${recurring.interval}) of its shortest subscription`;
      }
    }
    return { limit: limit ?? addInterval(from, "year", 2), rule };
  }

  const wake = () => {
    if (billing.waiting()) return;
    const resolved = idleWaiters;
    idleWaiters = [];
    for (const resolve of resolved) resolve();
  };

  /** Does an advance the clock is under: what is due, in order, then `ready`. */
  function finishAdvance(clockId: string) {
    const clock = store.get("test_helpers.test_clock", clockId);
    if (clock && clock.status === "advancing" && !closed) {
      const target = (clock.status_details as { advancing: { target_frozen_time: number } }).advancing
        .target_frozen_time;
      runUntil(clock, target);
      clock.frozen_time = target;
      clock.status = "ready";
      clock.status_details = {};
      emit("test_helpers.test_clock.ready", clock, NO_REQUEST, undefined, target);
      store.save();
    }
    wake();
  }

  function later(clockId: string) {
    const timer = setTimeout(() => {
      timers.delete(timer);
      finishAdvance(clockId);
    }, 0);
    timer.unref();
    timers.add(timer);
  }

  // ------------------------------------------------------------ the handle

  const billing: Billing = {
    timeOf,
    saveCard,

    attach(paymentMethod, customerId, origin) {
      const customer = store.get("customer", customerId);
      if (!customer) throw noSuch("customer", customerId, "customer");
      const at = timeOf(customerId);
      const test = TEST_PAYMENT_METHODS[paymentMethod];
      if (test) {
        const made = billingObjects.paymentMethod({
          card: test.card,
          email: null,
          name: null,
          customer: customerId,
          created: at,
        });
        store.put("payment_method", made);
        if (test.declinesLater) store.state.testing.declinesLater[made.id] = test.declinesLater;
        emit("payment_method.attached", made, origin, undefined, at);
        return made;
      }
      const found = store.get("payment_method", paymentMethod);
      if (!found) throw noSuch("payment_method", paymentMethod);
      if (found.customer === customerId) return found;
      if (found.customer) {
        throw invalid(
          "The payment method you provided has already been attached to a customer.",
          undefined,
          "payment_method_unexpected_state",
        );
      }
      found.customer = customerId;
      emit("payment_method.attached", found, origin, undefined, at);
      return found;
    },

    checkout(session, input, paymentMethodId) {
      let customerId = session.customer as string | null;
      const extras = store.state.checkout[session.id];
      if (!customerId) {
        // "For Checkout Sessions in subscription mode … Checkout will create a new customer object" (Session `customer`).
        const made = objects.customer({ email: input.email, name: input.name });
        store.put("customer", made);
        emit("customer.created", made, NO_REQUEST);
        customerId = made.id;
      }
      const at = timeOf(customerId);
      const card = saveCard(customerId, input, paymentMethodId);
      const items = (extras?.lineItems ?? []).map((line) => ({
        price: line.price as StripeObject,
        quantity: line.quantity as number,
      }));
      const { subscription: sub, invoice: inv } = startSubscription({
        customer: customerId,
        items,
        defaultPaymentMethod: card.id,
        metadata: extras?.subscriptionData?.metadata ?? {},
        description: extras?.subscriptionData?.description ?? null,
        schedule: null,
        at,
        origin: NO_REQUEST,
      });
      session.customer = customerId;
      session.subscription = sub.id;
      session.invoice = inv.id;
    },

    updateSubscription(id, changes, origin) {
      const sub = mustGet("subscription", id);
      const at = timeOf(sub.customer as string);
      if (
        sub.status === "canceled" &&
        (changes.cancelAtPeriodEnd !== undefined || changes.defaultPaymentMethod !== undefined)
      ) {
        throw invalid("A canceled subscription can only update its cancellation_details and metadata.");
      }
      if (changes.cancelAtPeriodEnd !== undefined && sub.schedule) {
        throw invalid(
          `The subscription is managed by the subscription schedule \`${String(sub.schedule)}\`, and updating any cancelation behavior directly is not allowed. Please update the schedule instead.`,
        );
      }
      if (changes.defaultPaymentMethod)
        attachedTo(sub.customer as string, changes.defaultPaymentMethod, "default_payment_method");
      const before = structuredClone(sub);
      if (changes.cancelAtPeriodEnd === true) {
        sub.cancel_at_period_end = true;
        sub.cancel_at = periodOf(sub).end;
        sub.canceled_at = at;
        (sub.cancellation_details as Record<string, unknown>).reason = "cancellation_requested";
      } else if (changes.cancelAtPeriodEnd === false) {
        sub.cancel_at_period_end = false;
        sub.cancel_at = null;
        sub.canceled_at = null;
        (sub.cancellation_details as Record<string, unknown>).reason = null;
      }
      if (changes.defaultPaymentMethod !== undefined) sub.default_payment_method = changes.defaultPaymentMethod;
      if (changes.metadata) sub.metadata = changes.metadata;
      subscriptionUpdated(before, sub, origin, at);
      return sub;
    },

    cancelSubscription(id, origin) {
      const sub = mustGet("subscription", id);
      if (sub.status === "canceled") {
        // The stand-in's words: Stripe refuses a second cancel, its message not documented.
        throw invalid(`The subscription ${id} has already been canceled.`);
      }
      const at = timeOf(sub.customer as string);
      endSubscription(sub, at, origin, "cancellation_requested");
      const schedule = sub.schedule ? store.get("subscription_schedule", sub.schedule as string) : undefined;
      if (schedule && (schedule.status === "active" || schedule.status === "not_started")) {
        schedule.status = "canceled";
        schedule.canceled_at = at;
        schedule.current_phase = null;
        emit("subscription_schedule.canceled", schedule, origin, undefined, at);
      }
      return sub;
    },

    payInvoice(id, paymentMethod, origin) {
      const inv = mustGet("invoice", id);
      if (inv.status === "paid") throw invalid("Invoice is already paid");
      if (inv.status !== "open")
        throw invalid(`You can only pay an invoice that is open. This invoice is ${String(inv.status)}.`);
      if (paymentMethod && !store.get("payment_method", paymentMethod))
        throw noSuch("payment_method", paymentMethod, "payment_method");
      const sub = subscriptionOfInvoice(inv);
      const customer = store.get("customer", inv.customer as string)!;
      if (!paymentMethod && !chargeableMethod(sub, customer)) throw invalid(NO_PAYMENT_METHOD_MESSAGE);
      const decline = attempt(inv, timeOf(inv.customer as string), "manual", origin, paymentMethod);
      if (decline) {
        store.save();
        throw new StripeError(402, decline.message, {
          type: "card_error",
          code: decline.code,
          extra: decline.declineCode ? { decline_code: decline.declineCode } : {},
        });
      }
      return inv;
    },

    scheduleFromSubscription(subscriptionId, metadata, origin) {
      const sub = store.get("subscription", subscriptionId);
      if (!sub) throw noSuch("subscription", subscriptionId, "from_subscription");
      if (sub.schedule) {
        throw invalid(
          `You cannot migrate a subscription that is already attached to a schedule: \`${String(sub.schedule)}\`.`,
          "from_subscription",
        );
      }
      if (!LIVE.has(sub.status as string)) {
        throw invalid(`You cannot migrate a subscription that is ${String(sub.status)}.`, "from_subscription");
      }
      const at = timeOf(sub.customer as string);
      const period = periodOf(sub);
      const phase = billingObjects.schedulePhase({
        items: itemsOf(sub).map((item) => ({
          price: (item.price as StripeObject).id,
          quantity: item.quantity as number,
        })),
        currency: sub.currency as string,
        startDate: period.start,
        endDate: period.end,
        metadata: sub.metadata as Record<string, string>,
      });
      const schedule = billingObjects.subscriptionSchedule({
        customer: sub.customer as string,
        created: at,
        // SubscriptionSchedule `end_behavior`: "Possible values are `release` or `cancel` with the default being `release`".
        endBehavior: "release",
        phases: [phase],
        defaultPaymentMethod: null,
        subscription: sub.id,
        testClock: (sub.test_clock as string | null) ?? null,
        metadata: metadata ?? {},
      });
      schedule.status = "active";
      schedule.current_phase = { end_date: period.end, start_date: period.start };
      store.put("subscription_schedule", schedule);
      const before = structuredClone(sub);
      sub.schedule = schedule.id;
      emit("subscription_schedule.created", schedule, origin, undefined, at);
      subscriptionUpdated(before, sub, origin, at);
      return schedule;
    },

    createSchedule(input, origin) {
      const customer = store.get("customer", input.customer);
      if (!customer) throw noSuch("customer", input.customer, "customer");
      if (input.defaultPaymentMethod)
        attachedTo(customer.id, input.defaultPaymentMethod, "default_settings[default_payment_method]");
      const at = timeOf(customer.id);
      const start = input.startDate === "now" ? at : input.startDate;
      const schedule = billingObjects.subscriptionSchedule({
        customer: customer.id,
        created: at,
        endBehavior: input.endBehavior,
        phases: resolvePhases(input.phases, start),
        defaultPaymentMethod: input.defaultPaymentMethod,
        subscription: null,
        testClock: (customer.test_clock as string | null) ?? null,
        metadata: input.metadata,
      });
      store.put("subscription_schedule", schedule);
      emit("subscription_schedule.created", schedule, origin, undefined, at);
      if (start <= at) startSchedule(schedule, start, origin);
      return schedule;
    },

    updateSchedule(id, changes, origin) {
      const schedule = mustGet("subscription_schedule", id);
      schedulable(schedule, "update");
      const at = timeOf(schedule.customer as string);
      if (changes.defaultPaymentMethod) {
        attachedTo(
          schedule.customer as string,
          changes.defaultPaymentMethod,
          "default_settings[default_payment_method]",
        );
      }
      const current = schedule.current_phase as { start_date: number } | null;
      let phases: Record<string, unknown>[] | undefined;
      if (changes.phases) {
        const first = changes.phases[0]!;
        const start =
          typeof first.startDate === "number"
            ? first.startDate
            : first.startDate === "now"
              ? at
              : (current?.start_date ?? (schedule.phases as { start_date: number }[])[0]!.start_date);
        if (schedule.status === "active" && current && start !== current.start_date) {
          throw invalid("You can not modify the start date of the current phase.", "phases[0][start_date]");
        }
        phases = resolvePhases(changes.phases, start);
      }
      const before = structuredClone(schedule);
      if (phases) schedule.phases = phases;
      if (changes.endBehavior) schedule.end_behavior = changes.endBehavior;
      if (changes.metadata) schedule.metadata = changes.metadata;
      if (changes.defaultPaymentMethod) {
        (schedule.default_settings as Record<string, unknown>).default_payment_method = changes.defaultPaymentMethod;
      }
      const sub = schedule.subscription ? store.get("subscription", schedule.subscription as string) : undefined;
      if (schedule.status === "active" && sub) {
        const phase = (schedule.phases as Record<string, unknown>[])[0]!;
        schedule.current_phase = { end_date: phase.end_date, start_date: phase.start_date };
        const subBefore = structuredClone(sub);
        applyItems(sub, phaseItemsOf(phase), at);
        syncCancelAt(schedule, sub);
        emit("subscription_schedule.updated", schedule, origin, previousOf(before, schedule), at);
        subscriptionUpdated(subBefore, sub, origin, at);
      } else {
        emit("subscription_schedule.updated", schedule, origin, previousOf(before, schedule), at);
      }
      return schedule;
    },

    cancelSchedule(id, origin) {
      const schedule = mustGet("subscription_schedule", id);
      schedulable(schedule, "cancel");
      const at = timeOf(schedule.customer as string);
      schedule.status = "canceled";
      schedule.canceled_at = at;
      schedule.current_phase = null;
      // "Cancels a subscription schedule and its associated subscription immediately" (API reference).
      const sub = schedule.subscription ? store.get("subscription", schedule.subscription as string) : undefined;
      if (sub && LIVE.has(sub.status as string)) endSubscription(sub, at, origin, "cancellation_requested");
      emit("subscription_schedule.canceled", schedule, origin, undefined, at);
      return schedule;
    },

    releaseSchedule(id, origin) {
      const schedule = mustGet("subscription_schedule", id);
      schedulable(schedule, "release");
      const at = timeOf(schedule.customer as string);
      const sub = schedule.subscription ? store.get("subscription", schedule.subscription as string) : undefined;
      if (sub && schedule.end_behavior === "cancel") {
        const before = structuredClone(sub);
        sub.cancel_at = null;
        subscriptionUpdated(before, sub, origin, at);
      }
      release(schedule, sub, at, origin);
      return schedule;
    },

    createClock(frozenTime, name, origin) {
      const clock = billingObjects.testClock({ frozenTime, name, created: objects.now() });
      store.put("test_helpers.test_clock", clock);
      emit("test_helpers.test_clock.created", clock, origin, undefined, frozenTime);
      return clock;
    },

    advanceClock(id, frozenTime, origin) {
      const clock = store.get("test_helpers.test_clock", id);
      if (!clock) throw noSuch("test_helpers.test_clock", id);
      if (clock.status === "advancing") {
        throw invalid("The test clock is already advancing: wait until its status is ready.", "test_clock");
      }
      // The stand-in's words for Stripe's rules (TestClockAdvanceParams `frozen_time`): "Must be
      // after the test clock's current frozen time. Cannot be more than two intervals in the
      // future from the shortest subscription in this test clock. If there are no subscriptions in
      // this test clock, it cannot be more than two years in the future."
      if (frozenTime <= (clock.frozen_time as number)) {
        throw invalid("The frozen time must be after the test clock's current frozen time.", "frozen_time");
      }
      const { limit, rule } = advanceLimit(clock);
      if (frozenTime > limit) {
        throw invalid(
          `The test clock cannot advance more than ${rule} in one step: the furthest it can go now is ${limit}.`,
          "frozen_time",
        );
      }
      clock.status = "advancing";
      clock.status_details = { advancing: { target_frozen_time: frozenTime } };
      emit("test_helpers.test_clock.advancing", clock, origin, undefined, clock.frozen_time as number);
      later(id);
      return clock;
    },

    deleteClock(id, origin) {
      const clock = store.get("test_helpers.test_clock", id);
      if (!clock) throw noSuch("test_helpers.test_clock", id);
      // Deleting a clock deletes the objects on it, its customers first (docs: Test clocks; the
      // stand-in removes them without `*.deleted` events, which it has not confirmed Stripe sends).
      for (const collection of ["customer", "subscription", "subscription_schedule", "invoice"] as const) {
        for (const { data } of store.all(collection)) if (data.test_clock === id) store.remove(collection, data.id);
      }
      store.remove("test_helpers.test_clock", id);
      emit("test_helpers.test_clock.deleted", clock, origin, undefined, clock.frozen_time as number);
      return { id, object: "test_helpers.test_clock", deleted: true };
    },

    sweep() {
      runUntil(null, objects.now());
    },

    waiting: () => !closed && store.all("test_helpers.test_clock").some((c) => c.data.status === "advancing"),

    idle() {
      if (!billing.waiting()) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },

    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      wake();
    },
  };
  // A clock that was advancing when the stand-in stopped finishes its advance.
  for (const { data } of store.all("test_helpers.test_clock")) if (data.status === "advancing") later(data.id);
  return billing;
}
