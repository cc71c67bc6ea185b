/**
 * The Billing objects the Stripe stand-in makes, in the shapes of API version 2026-10-28.endive
 * (fields as stripe-node 23.1's `resources/*.d.ts` declare them): PaymentMethod (a saved card),
 * Subscription and its items (each with its Plan, the price as the legacy Plans API shows it),
 * Invoice and its lines, InvoicePayment, SubscriptionSchedule and its phases, TestClock and the
 * customer portal's Session. Since 2025-03-31.basil a subscription's period is on its items
 * (`current_period_start/end`), an invoice names its subscription in `parent.subscription_details`
 * and its payments are InvoicePayments (no `charge`/`payment_intent` on the invoice). The
 * behaviour is in ./billing.ts. Dev and test only.
 */
import type { Card } from "./objects.ts";
import { newId, randomId, type StripeObject } from "./store.ts";

/** A saved card (PaymentMethod `type: card`), attached to `customer` when given. */
export function paymentMethod(input: {
  card: Card;
  email: string | null;
  name: string | null;
  customer: string | null;
  created: number;
  id?: string;
}): StripeObject {
  const { card } = input;
  return {
    id: input.id ?? newId("pm"),
    object: "payment_method",
    allow_redisplay: "always",
    billing_details: {
      address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
      email: input.email,
      name: input.name,
      phone: null,
      tax_id: null,
    },
    card: {
      brand: card.brand,
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: "pass" },
      country: "US",
      display_brand: card.brand,
      exp_month: card.expMonth,
      exp_year: card.expYear,
      fingerprint: randomId(16),
      funding: card.funding,
      generated_from: null,
      last4: card.last4,
      networks: { available: [card.brand], preferred: null },
      regulated_status: "unregulated",
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created: input.created,
    customer: input.customer,
    customer_account: null,
    livemode: false,
    metadata: {},
    type: "card",
  };
}

/** The Plan a recurring price is (SubscriptionItem `plan`): the same id, amount and interval. */
export function planOf(price: StripeObject): Record<string, unknown> {
  const recurring = price.recurring as { interval: string; interval_count: number };
  return {
    id: price.id,
    object: "plan",
    active: price.active,
    amount: price.unit_amount,
    amount_decimal: price.unit_amount_decimal,
    billing_scheme: "per_unit",
    created: price.created,
    currency: price.currency,
    interval: recurring.interval,
    interval_count: recurring.interval_count,
    livemode: false,
    metadata: price.metadata,
    meter: null,
    nickname: price.nickname,
    product: price.product,
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: null,
    usage_type: "licensed",
  };
}

export function subscriptionItem(input: {
  price: StripeObject;
  quantity: number;
  subscription: string;
  created: number;
  periodStart: number;
  periodEnd: number;
}): Record<string, unknown> {
  return {
    id: newId("si"),
    object: "subscription_item",
    billing_thresholds: null,
    created: input.created,
    current_period_end: input.periodEnd,
    current_period_start: input.periodStart,
    current_trial: null,
    discounts: [],
    metadata: {},
    plan: planOf(input.price),
    price: structuredClone(input.price),
    quantity: input.quantity,
    subscription: input.subscription,
    tax_rates: [],
  };
}

const invoiceSettings = () => ({
  account_tax_ids: null,
  custom_fields: null,
  description: null,
  footer: null,
  issuer: { type: "self" },
});

/**
 * A subscription as it is made, `incomplete` until its first invoice is paid. Its billing mode is
 * `flexible`, which the stand-in takes to be the default for subscriptions made at API versions
 * from 2025-09-30.clover on (its reading of the changelog; not confirmed against the API).
 */
export function subscription(input: {
  id: string;
  customer: string;
  currency: string;
  items: Record<string, unknown>[];
  created: number;
  startDate: number;
  defaultPaymentMethod: string | null;
  metadata: Record<string, string>;
  description: string | null;
  testClock: string | null;
  schedule: string | null;
}): StripeObject {
  return {
    id: input.id,
    object: "subscription",
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: input.startDate,
    billing_cycle_anchor_config: null,
    billing_mode: { flexible: { proration_discounts: "included" }, type: "flexible" },
    billing_schedules: [],
    billing_thresholds: null,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: { comment: null, feedback: null, feedback_option: null, reason: null },
    collection_method: "charge_automatically",
    created: input.created,
    currency: input.currency,
    customer: input.customer,
    customer_account: null,
    days_until_due: null,
    default_payment_method: input.defaultPaymentMethod,
    default_source: null,
    default_tax_rates: [],
    description: input.description,
    discounts: [],
    ended_at: null,
    invoice_settings: invoiceSettings(),
    items: {
      object: "list",
      data: input.items,
      has_more: false,
      total_count: input.items.length,
      url: `/v1/subscription_items?subscription=${input.id}`,
    },
    latest_invoice: null,
    livemode: false,
    managed_payments: null,
    metadata: input.metadata,
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: "off" },
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: input.schedule,
    start_date: input.startDate,
    status: "incomplete",
    test_clock: input.testClock,
    transfer_data: null,
    trial_end: null,
    trial_settings: { end_behavior: { missing_payment_method: "create_invoice" } },
    trial_start: null,
  };
}

/** One line of an invoice for a subscription item's period (InvoiceLineItem, `parent.type: subscription_item_details`). */
export function invoiceLine(input: {
  invoice: string;
  subscription: string;
  item: Record<string, unknown>;
  productName: string;
  periodStart: number;
  periodEnd: number;
}): Record<string, unknown> {
  const price = input.item.price as StripeObject;
  const quantity = input.item.quantity as number;
  const amount = (price.unit_amount as number) * quantity;
  const recurring = price.recurring as { interval: string; interval_count: number };
  const every =
    recurring.interval_count === 1 ? recurring.interval : `${recurring.interval_count} ${recurring.interval}s`;
  const each = new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: String(price.currency).toUpperCase(),
  }).format((price.unit_amount as number) / 100);
  return {
    id: newId("il"),
    object: "line_item",
    amount,
    currency: price.currency,
    // Stripe's wording for a subscription's line: "1 × Gold Plan (at $10.00 / month)".
    description: `${quantity} × ${input.productName} (at ${each} / ${every})`,
    discount_amounts: [],
    discountable: true,
    discounts: [],
    invoice: input.invoice,
    livemode: false,
    metadata: {},
    parent: {
      invoice_item_details: null,
      subscription_item_details: {
        invoice_item: null,
        proration: false,
        proration_details: { credited_items: null },
        subscription: input.subscription,
        subscription_item: input.item.id,
      },
      type: "subscription_item_details",
    },
    period: { end: input.periodEnd, start: input.periodStart },
    pretax_credit_amounts: [],
    pricing: {
      price_details: { price: price.id, product: price.product },
      type: "price_details",
      unit_amount_decimal: price.unit_amount_decimal,
    },
    quantity,
    quantity_decimal: String(quantity),
    subscription: input.subscription,
    subtotal: amount,
    taxes: [],
  };
}

/** A subscription's invoice, as it is made: a draft, with its lines and their total. */
export function invoice(input: {
  id: string;
  customer: StripeObject;
  subscription: StripeObject;
  lines: Record<string, unknown>[];
  billingReason: "subscription_create" | "subscription_cycle";
  created: number;
  periodStart: number;
  periodEnd: number;
  accountName: string;
}): StripeObject {
  const total = input.lines.reduce((sum, line) => sum + (line.amount as number), 0);
  return {
    id: input.id,
    object: "invoice",
    account_country: "US",
    account_name: input.accountName,
    account_tax_ids: null,
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: total,
    amount_shipping: 0,
    application: null,
    attempt_count: 0,
    attempted: false,
    auto_advance: true,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
    automatically_finalizes_at: null,
    billing_reason: input.billingReason,
    collection_method: "charge_automatically",
    created: input.created,
    currency: input.subscription.currency,
    custom_fields: null,
    customer: input.customer.id,
    customer_account: null,
    customer_address: null,
    customer_email: input.customer.email,
    customer_name: input.customer.name,
    customer_phone: null,
    customer_shipping: null,
    customer_tax_exempt: "none",
    customer_tax_ids: [],
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    due_date: null,
    effective_at: null,
    ending_balance: null,
    footer: null,
    from_invoice: null,
    hosted_invoice_url: null,
    invoice_pdf: null,
    issuer: { type: "self" },
    last_finalization_error: null,
    latest_revision: null,
    lines: {
      object: "list",
      data: input.lines,
      has_more: false,
      total_count: input.lines.length,
      url: `/v1/invoices/${input.id}/lines`,
    },
    livemode: false,
    metadata: {},
    next_payment_attempt: null,
    number: null,
    on_behalf_of: null,
    parent: {
      quote_details: null,
      subscription_details: {
        metadata: structuredClone(input.subscription.metadata),
        subscription: input.subscription.id,
      },
      type: "subscription_details",
    },
    payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
    period_end: input.periodEnd,
    period_start: input.periodStart,
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: 0,
    statement_descriptor: null,
    status: "draft",
    status_transitions: { finalized_at: null, marked_uncollectible_at: null, paid_at: null, voided_at: null },
    subtotal: total,
    subtotal_excluding_tax: total,
    test_clock: input.subscription.test_clock,
    total,
    total_discount_amounts: [],
    total_excluding_tax: total,
    total_pretax_credit_amounts: [],
    total_taxes: [],
    webhooks_delivered_at: null,
  };
}

/** The link of an invoice to the PaymentIntent that pays it (InvoicePayment), `open` until paid. */
export function invoicePayment(input: { invoice: StripeObject; paymentIntent: string; created: number }): StripeObject {
  return {
    id: newId("inpay"),
    object: "invoice_payment",
    amount_paid: null,
    amount_requested: input.invoice.amount_due,
    created: input.created,
    currency: input.invoice.currency,
    invoice: input.invoice.id,
    is_default: true,
    livemode: false,
    payment: { payment_intent: input.paymentIntent, type: "payment_intent" },
    status: "open",
    status_transitions: { canceled_at: null, paid_at: null },
  };
}

/** One phase of a schedule as Stripe shows it: its items by price id, its dates. */
export function schedulePhase(input: {
  items: { price: string; quantity: number }[];
  currency: string;
  startDate: number;
  endDate: number;
  defaultPaymentMethod?: string | null;
  metadata?: Record<string, string>;
}): Record<string, unknown> {
  return {
    add_invoice_items: [],
    application_fee_percent: null,
    billing_cycle_anchor: null,
    billing_thresholds: null,
    collection_method: null,
    currency: input.currency,
    default_payment_method: input.defaultPaymentMethod ?? null,
    description: null,
    discounts: [],
    end_date: input.endDate,
    invoice_settings: null,
    items: input.items.map((item) => ({
      billing_thresholds: null,
      discounts: [],
      metadata: {},
      plan: item.price,
      price: item.price,
      quantity: item.quantity,
      tax_rates: [],
    })),
    metadata: input.metadata ?? {},
    on_behalf_of: null,
    proration_behavior: "create_prorations",
    start_date: input.startDate,
    transfer_data: null,
    trial_end: null,
  };
}

export function subscriptionSchedule(input: {
  customer: string;
  created: number;
  endBehavior: string;
  phases: Record<string, unknown>[];
  defaultPaymentMethod: string | null;
  subscription: string | null;
  testClock: string | null;
  metadata: Record<string, string>;
}): StripeObject {
  return {
    id: newId("sub_sched"),
    object: "subscription_schedule",
    application: null,
    billing_mode: { flexible: { proration_discounts: "included" }, type: "flexible" },
    canceled_at: null,
    completed_at: null,
    created: input.created,
    current_phase: null,
    customer: input.customer,
    customer_account: null,
    default_settings: {
      application_fee_percent: null,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null },
      billing_cycle_anchor: "automatic",
      billing_thresholds: null,
      collection_method: "charge_automatically",
      default_payment_method: input.defaultPaymentMethod,
      description: null,
      invoice_settings: {
        account_tax_ids: null,
        custom_fields: null,
        days_until_due: null,
        description: null,
        footer: null,
        issuer: { type: "self" },
      },
      on_behalf_of: null,
      transfer_data: null,
    },
    end_behavior: input.endBehavior,
    livemode: false,
    metadata: input.metadata,
    pause_schedules: [],
    phases: input.phases,
    released_at: null,
    released_subscription: null,
    status: "not_started",
    subscription: input.subscription,
    test_clock: input.testClock,
  };
}

/**
 * When a clock is deleted on its own (TestClock `deletes_after`, "Time at which this clock is
 * scheduled to auto delete"): 30 days after it is made, the stand-in's reading of the test clocks
 * docs; the stand-in shows the date and does not delete it.
 */
const CLOCK_LIFETIME_S = 30 * 24 * 60 * 60;

export function testClock(input: { frozenTime: number; name: string | null; created: number }): StripeObject {
  return {
    id: newId("clock"),
    object: "test_helpers.test_clock",
    created: input.created,
    deletes_after: input.created + CLOCK_LIFETIME_S,
    frozen_time: input.frozenTime,
    livemode: false,
    name: input.name,
    status: "ready",
    status_details: {},
  };
}

export function portalSession(input: {
  customer: string;
  returnUrl: string | null;
  created: number;
  configuration: string;
  url: (id: string) => string;
}): StripeObject {
  const id = newId("bps");
  return {
    id,
    object: "billing_portal.session",
    configuration: input.configuration,
    created: input.created,
    customer: input.customer,
    customer_account: null,
    flow: null,
    livemode: false,
    locale: null,
    on_behalf_of: null,
    return_url: input.returnUrl,
    url: input.url(id),
  };
}
