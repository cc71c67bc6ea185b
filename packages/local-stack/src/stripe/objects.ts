/**
 * The Stripe objects the stand-in makes, in the shapes of API version 2026-10-28.endive (the
 * version stripe-node 23.1 pins; fields as its `resources/*.d.ts` declare them): Product, Price,
 * Customer, Checkout Session and its line items, PaymentIntent, Charge, Refund, Dispute (with its
 * balance transactions), early fraud warning and Event. Also `expand[]` (an id replaced by its
 * object, `data.` inside lists, includable lists such as a session's `line_items`) and Stripe's
 * cursor pagination (`limit`, `starting_after`, `ending_before`, `has_more`). Dev and test only.
 */
import { randomUUID } from "node:crypto";
import { invalid, noSuch, type Reader } from "./params.ts";
import { type Collection, newestFirst, newId, randomId, type Store, type Stored, type StripeObject } from "./store.ts";

/** The API version whose shapes the stand-in answers and whose events it sends. */
export const API_VERSION = "2026-10-28.endive";

export const now = () => Math.floor(Date.now() / 1000);

const nullAddress = () => ({ city: null, country: null, line1: null, line2: null, postal_code: null, state: null });

export function product(input: {
  id?: string;
  name: string;
  description?: string | null;
  active?: boolean;
  metadata?: Record<string, string>;
  images?: string[];
  url?: string | null;
  unitLabel?: string | null;
  statementDescriptor?: string | null;
  shippable?: boolean | null;
}): StripeObject {
  const created = now();
  return {
    id: input.id ?? newId("prod"),
    object: "product",
    active: input.active ?? true,
    created,
    default_price: null,
    description: input.description ?? null,
    images: input.images ?? [],
    livemode: false,
    marketing_features: [],
    metadata: input.metadata ?? {},
    name: input.name,
    package_dimensions: null,
    shippable: input.shippable ?? null,
    statement_descriptor: input.statementDescriptor ?? null,
    tax_code: null,
    tax_details: null,
    type: "service",
    unit_label: input.unitLabel ?? null,
    updated: created,
    url: input.url ?? null,
  };
}

export function price(input: {
  product: string;
  currency: string;
  unitAmount: number;
  lookupKey?: string | null;
  nickname?: string | null;
  metadata?: Record<string, string>;
  active?: boolean;
  taxBehavior?: string;
  /** A recurring price's interval (Price `recurring`, `type: recurring`); one-time without. */
  recurring?: { interval: string; intervalCount: number } | null;
}): StripeObject {
  const recurring = input.recurring
    ? {
        interval: input.recurring.interval,
        interval_count: input.recurring.intervalCount,
        meter: null,
        trial_period_days: null,
        usage_type: "licensed",
      }
    : null;
  return {
    id: newId("price"),
    object: "price",
    active: input.active ?? true,
    billing_scheme: "per_unit",
    created: now(),
    currency: input.currency,
    custom_unit_amount: null,
    livemode: false,
    lookup_key: input.lookupKey ?? null,
    metadata: input.metadata ?? {},
    nickname: input.nickname ?? null,
    product: input.product,
    recurring,
    tax_behavior: input.taxBehavior ?? "unspecified",
    tiers_mode: null,
    transform_quantity: null,
    type: recurring ? "recurring" : "one_time",
    unit_amount: input.unitAmount,
    unit_amount_decimal: String(input.unitAmount),
  };
}

export function customer(input: {
  email?: string | null;
  name?: string | null;
  description?: string | null;
  phone?: string | null;
  metadata?: Record<string, string>;
  /** A test clock's customer is made at the clock's frozen time. */
  testClock?: { id: string; frozenTime: number } | null;
}): StripeObject {
  return {
    id: newId("cus"),
    object: "customer",
    address: null,
    balance: 0,
    created: input.testClock?.frozenTime ?? now(),
    currency: null,
    customer_account: null,
    default_source: null,
    delinquent: false,
    description: input.description ?? null,
    discount: null,
    email: input.email ?? null,
    invoice_prefix: randomId(8).toUpperCase(),
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata: input.metadata ?? {},
    name: input.name ?? null,
    next_invoice_sequence: 1,
    phone: input.phone ?? null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: "none",
    test_clock: input.testClock?.id ?? null,
  };
}

/** A Checkout line item (`object: 'item'`): the price as it was, its product's name, the amounts. */
export function lineItem(priceObject: StripeObject, productName: string, quantity: number): StripeObject {
  const amount = (priceObject.unit_amount as number) * quantity;
  return {
    id: newId("li"),
    object: "item",
    adjustable_quantity: null,
    amount_discount: 0,
    amount_subtotal: amount,
    amount_tax: 0,
    amount_total: amount,
    currency: priceObject.currency,
    description: productName,
    metadata: {},
    price: priceObject,
    quantity,
  } as unknown as StripeObject;
}

/** Payment methods the hosted page offers: Stripe's ids. */
export const PAYMENT_METHOD_TYPES = ["card", "us_bank_account"] as const;

export function checkoutSession(input: {
  url: string;
  amount: number;
  currency: string;
  customer: string | null;
  customerEmail: string | null;
  customerCreation: "always" | "if_required" | null;
  clientReferenceId: string | null;
  successUrl: string;
  cancelUrl: string | null;
  metadata: Record<string, string>;
  expiresAt: number;
  created: number;
  id: string;
  mode?: "payment" | "subscription";
  /** `custom_text[submit][message]`: shown beside the pay button. */
  submitMessage?: string | null;
}): StripeObject {
  return {
    id: input.id,
    object: "checkout.session",
    adaptive_pricing: { enabled: false },
    after_expiration: null,
    allow_promotion_codes: null,
    allowed_payment_method_types: null,
    amount_subtotal: input.amount,
    amount_total: input.amount,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: input.cancelUrl,
    client_reference_id: input.clientReferenceId,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created: input.created,
    currency: input.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: {
      after_submit: null,
      shipping_address: null,
      submit: input.submitMessage ? { message: input.submitMessage } : null,
      terms_of_service_acceptance: null,
    },
    customer: input.customer,
    customer_account: null,
    customer_creation: input.customerCreation,
    customer_details: null,
    customer_email: input.customerEmail,
    discounts: [],
    expires_at: input.expiresAt,
    integration_identifier: null,
    invoice: null,
    invoice_creation: {
      enabled: false,
      invoice_data: {
        account_tax_ids: null,
        custom_fields: null,
        description: null,
        footer: null,
        issuer: null,
        metadata: {},
        rendering_options: null,
      },
    },
    livemode: false,
    locale: null,
    managed_payments: null,
    metadata: input.metadata,
    mode: input.mode ?? "payment",
    origin_context: null,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: "if_required",
    payment_method_configuration_details: null,
    payment_method_options: {
      card: { request_three_d_secure: "automatic" },
      us_bank_account: { verification_method: "automatic" },
    },
    payment_method_types: [...PAYMENT_METHOD_TYPES],
    payment_status: "unpaid",
    permissions: null,
    phone_number_collection: { enabled: false },
    recovered_from: null,
    saved_payment_method_options: input.customer
      ? { allow_redisplay_filters: ["always"], payment_method_remove: "disabled", payment_method_save: null }
      : null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: "open",
    submit_type: null,
    subscription: null,
    success_url: input.successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: "hosted_page",
    url: input.url,
    wallet_options: null,
  };
}

/** What the buyer entered on the hosted page, kept on the session as Stripe's `customer_details`. */
export function customerDetails(email: string, name: string | null) {
  return {
    address: nullAddress(),
    business_name: null,
    email,
    individual_name: null,
    name,
    phone: null,
    tax_exempt: "none",
    tax_ids: [],
  };
}

export interface Card {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  funding: string;
}

export interface BankAccount {
  routingNumber: string;
  last4: string;
}

export type Method = { type: "card"; card: Card } | { type: "us_bank_account"; bank: BankAccount };

export function paymentIntent(input: {
  amount: number;
  currency: string;
  customer: string | null;
  metadata: Record<string, string>;
}): StripeObject {
  const id = newId("pi");
  return {
    id,
    object: "payment_intent",
    allowed_payment_method_types: null,
    amount: input.amount,
    amount_capturable: 0,
    amount_details: { tip: {} },
    amount_received: 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: null,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: "automatic_async",
    client_secret: `${id}_secret_${randomId(25)}`,
    confirmation_method: "automatic",
    created: now(),
    currency: input.currency,
    customer: input.customer,
    customer_account: null,
    description: null,
    excluded_payment_method_types: null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    managed_payments: null,
    metadata: input.metadata,
    next_action: null,
    on_behalf_of: null,
    payment_method: null,
    payment_method_configuration_details: null,
    payment_method_options: {
      card: { installments: null, mandate_options: null, network: null, request_three_d_secure: "automatic" },
      us_bank_account: { verification_method: "automatic" },
    },
    payment_method_types: [...PAYMENT_METHOD_TYPES],
    payment_record: null,
    processing: null,
    receipt_email: null,
    review: null,
    setup_future_usage: null,
    shipping: null,
    source: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: "requires_payment_method",
    transfer_data: null,
    transfer_group: null,
  };
}

/** Stripe's `outcome` of a charge: approved, or the issuer's decline with its reason. */
function outcome(declineCode: string | null) {
  if (!declineCode) {
    return {
      advice_code: null,
      network_advice_code: null,
      network_decline_code: null,
      network_status: "approved_by_network",
      reason: null,
      risk_level: "normal",
      risk_score: 32,
      seller_message: "Payment complete.",
      type: "authorized",
    };
  }
  return {
    advice_code: declineCode === "insufficient_funds" ? "try_again_later" : "do_not_try_again",
    network_advice_code: null,
    network_decline_code: null,
    network_status: "declined_by_network",
    reason: declineCode,
    risk_level: "normal",
    risk_score: 32,
    seller_message:
      declineCode === "generic_decline"
        ? "The bank did not return any further details with this decline."
        : `The bank returned the decline code \`${declineCode}\`.`,
    type: "issuer_declined",
  };
}

export function charge(input: {
  intent: StripeObject;
  method: Method;
  paymentMethod: string;
  email: string;
  name: string | null;
  status: "succeeded" | "pending" | "failed";
  failure?: { code: string; declineCode: string | null; message: string };
  brand: string;
  /** The 3-D Secure check the card passed, for a card that asked for one. */
  threeDSecure?: Record<string, unknown> | null;
}): StripeObject {
  const { intent, method } = input;
  const succeeded = input.status === "succeeded";
  const details =
    method.type === "card"
      ? {
          card: {
            amount_authorization: null,
            brand: method.card.brand,
            checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: "pass" },
            country: "US",
            exp_month: method.card.expMonth,
            exp_year: method.card.expYear,
            fingerprint: randomId(16),
            funding: method.card.funding,
            last4: method.card.last4,
            network: method.card.brand,
            network_token: { used: false },
            three_d_secure: input.threeDSecure ?? null,
            wallet: null,
          },
          type: "card",
        }
      : {
          type: "us_bank_account",
          us_bank_account: {
            account_holder_type: "individual",
            account_type: "checking",
            bank_name: "STRIPE TEST BANK",
            fingerprint: randomId(16),
            last4: method.bank.last4,
            payment_reference: null,
            routing_number: method.bank.routingNumber,
          },
        };
  return {
    id: newId("ch"),
    object: "charge",
    amount: intent.amount,
    amount_captured: succeeded ? intent.amount : 0,
    amount_refunded: 0,
    application: null,
    application_fee: null,
    application_fee_amount: null,
    balance_transaction: succeeded ? newId("txn") : null,
    billing_details: { address: nullAddress(), email: input.email, name: input.name, phone: null, tax_id: null },
    calculated_statement_descriptor: input.brand.toUpperCase().slice(0, 22),
    captured: input.status !== "failed",
    created: now(),
    currency: intent.currency,
    customer: intent.customer,
    description: null,
    disputed: false,
    failure_balance_transaction: null,
    failure_code: input.failure?.code ?? null,
    failure_message: input.failure?.message ?? null,
    fraud_details: {},
    livemode: false,
    metadata: intent.metadata,
    on_behalf_of: null,
    outcome:
      input.status === "pending"
        ? null
        : outcome(input.failure ? (input.failure.declineCode ?? "generic_decline") : null),
    paid: succeeded,
    payment_intent: intent.id,
    payment_method: input.paymentMethod,
    payment_method_details: details,
    radar_options: {},
    // The PaymentIntent's receipt address; the number and the page come when the charge succeeds
    // (packages/local-stack/src/stripe/receipts.ts).
    receipt_email: (intent.receipt_email as string | null | undefined) ?? null,
    receipt_number: null,
    receipt_url: null,
    refunded: false,
    review: null,
    shipping: null,
    source: null,
    source_transfer: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: input.status,
    transfer_data: null,
    transfer_group: null,
  };
}

/** A charge's `three_d_secure` after the buyer completed a challenge (Charge `payment_method_details.card.three_d_secure`). */
export function threeDSecure(): Record<string, unknown> {
  return {
    authentication_flow: "challenge",
    electronic_commerce_indicator: "05",
    exemption_indicator: null,
    result: "authenticated",
    result_reason: null,
    transaction_id: randomUUID(),
    version: "2.2.0",
  };
}

export function refund(input: {
  charge: StripeObject;
  amount: number;
  reason: string | null;
  metadata: Record<string, string>;
}): StripeObject {
  const byCard = (input.charge.payment_method_details as { type: string }).type === "card";
  return {
    id: newId("re"),
    object: "refund",
    amount: input.amount,
    balance_transaction: newId("txn"),
    charge: input.charge.id,
    created: now(),
    currency: input.charge.currency,
    customer: input.charge.customer,
    customer_account: null,
    destination_details: byCard
      ? {
          card: { reference_status: "pending", reference_type: "acquirer_reference_number", type: "refund" },
          type: "card",
        }
      : { type: "us_bank_account", us_bank_account: { reference: null, reference_status: "pending" } },
    metadata: input.metadata,
    payment_intent: input.charge.payment_intent,
    payment_method: input.charge.payment_method,
    reason: input.reason,
    receipt_number: null,
    source_transfer_reversal: null,
    // A card refund succeeds at once; an ACH refund stays pending until the bank returns it.
    status: byCard ? "succeeded" : "pending",
    transfer_reversal: null,
  };
}

export function event(input: {
  type: string;
  object: StripeObject;
  previous?: Record<string, unknown>;
  request: { id: string | null; idempotency_key: string | null };
  /** A test clock's events happen at its frozen time; others now. */
  created?: number;
}): StripeObject {
  return {
    id: newId("evt"),
    object: "event",
    api_version: API_VERSION,
    created: input.created ?? now(),
    data: { object: structuredClone(input.object), ...(input.previous ? { previous_attributes: input.previous } : {}) },
    livemode: false,
    pending_webhooks: 1,
    request: input.request,
    type: input.type,
  };
}

/** What a dispute test card makes (docs: Testing, Disputes): a chargeback for one of two reasons, or an inquiry. */
export type DisputeKind = "fraudulent" | "product_not_received" | "inquiry";

/** The dispute's text evidence fields (Dispute `evidence`): each a string up to its limit, null until given. */
export const EVIDENCE_TEXT_FIELDS = [
  "access_activity_log",
  "billing_address",
  "cancellation_policy_disclosure",
  "cancellation_rebuttal",
  "customer_email_address",
  "customer_name",
  "customer_purchase_ip",
  "duplicate_charge_explanation",
  "duplicate_charge_id",
  "product_description",
  "refund_policy_disclosure",
  "refund_refusal_explanation",
  "service_date",
  "shipping_address",
  "shipping_carrier",
  "shipping_date",
  "shipping_tracking_number",
  "uncategorized_text",
] as const;

/** The evidence fields that take the id of a file upload (Dispute `evidence`, "ID of a file upload"). */
export const EVIDENCE_FILE_FIELDS = [
  "cancellation_policy",
  "customer_communication",
  "customer_signature",
  "duplicate_charge_documentation",
  "receipt",
  "refund_policy",
  "service_documentation",
  "shipping_documentation",
  "uncategorized_file",
] as const;

/** The dispute fee Stripe withdraws with a chargeback, in cents of USD ("Dispute fee", a `stripe_fee`). */
export const DISPUTE_FEE = 1_500;

/**
 * A dispute as a test card opens it (stripe-node `resources/Disputes.d.ts`): the charge's amount,
 * every evidence field null, evidence due at the end of the 19th day (UTC; the API reference's
 * example is created 2023-04-04 and due 2023-04-23 23:59:59). A chargeback `needs_response` and
 * cannot be refunded; an inquiry `warning_needs_response` and still can (`is_charge_refundable`).
 * The network reason code is Visa's, from the reason's category (docs: Dispute reason code
 * categories: 10.4 "Other Fraud - Card Absent Environment", 13.1 "Merchandise/Services Not
 * Received"); an inquiry names none.
 */
export function dispute(input: { charge: StripeObject; kind: DisputeKind }): StripeObject {
  const { charge: disputed, kind } = input;
  const created = now();
  const inquiry = kind === "inquiry";
  const reasonCode = kind === "fraudulent" ? "10.4" : kind === "product_not_received" ? "13.1" : null;
  const card = (disputed.payment_method_details as { card?: { brand: string; network: string } }).card;
  return {
    id: newId("du"),
    object: "dispute",
    amount: disputed.amount,
    balance_transactions: [],
    charge: disputed.id,
    created,
    currency: disputed.currency,
    enhanced_eligibility_types: [],
    evidence: Object.fromEntries(
      [...EVIDENCE_TEXT_FIELDS, ...EVIDENCE_FILE_FIELDS, "enhanced_evidence"]
        .sort()
        .map((field) => [field, field === "enhanced_evidence" ? {} : null]),
    ),
    evidence_details: {
      due_by: (Math.floor(created / 86_400) + 20) * 86_400 - 1,
      enhanced_eligibility: {},
      has_evidence: false,
      past_due: false,
      submission_count: 0,
      submission_method: "not_submitted",
    },
    intended_submission_method: null,
    is_charge_refundable: inquiry,
    livemode: false,
    metadata: {},
    network_reason_code: reasonCode,
    payment_intent: disputed.payment_intent,
    payment_method_details: {
      card: {
        brand: card?.brand ?? "visa",
        case_type: inquiry ? "inquiry" : "chargeback",
        network: card?.network ?? "visa",
        network_reason_code: reasonCode,
      },
      type: "card",
    },
    reason: inquiry ? "fraudulent" : kind,
    status: inquiry ? "warning_needs_response" : "needs_response",
  };
}

/**
 * The balance transaction of a dispute's money: the amount and the dispute fee withdrawn, or both
 * given back when it is won (docs: Testing, Disputes, `winning_evidence`: "Your account is credited
 * the amount of the charge and related fees"). Stripe files both as adjustments, reported as
 * `dispute` and `dispute_reversal`.
 */
export function disputeBalanceTransaction(input: {
  dispute: StripeObject;
  direction: "withdrawn" | "reinstated";
}): StripeObject {
  const sign = input.direction === "withdrawn" ? -1 : 1;
  const amount = sign * (input.dispute.amount as number);
  const fee = -sign * DISPUTE_FEE;
  const created = now();
  const currency = input.dispute.currency as string;
  return {
    id: newId("txn"),
    object: "balance_transaction",
    amount,
    available_on: created,
    balance_type: "payments",
    created,
    currency,
    description: `${input.direction === "withdrawn" ? "Chargeback withdrawal" : "Chargeback reversal"} for ${String(input.dispute.charge)}`,
    exchange_rate: null,
    fee,
    fee_details: [{ amount: fee, application: null, currency, description: "Dispute fee", type: "stripe_fee" }],
    net: amount - fee,
    reporting_category: input.direction === "withdrawn" ? "dispute" : "dispute_reversal",
    source: input.dispute.id,
    status: "available",
    type: "adjustment",
  };
}

/**
 * An early fraud warning on a charge (stripe-node `resources/Radar/EarlyFraudWarnings.d.ts`):
 * actionable while the charge is neither disputed nor refunded; `misc`, the fraud type of the API
 * reference's example (the test card's own is not documented).
 */
export function earlyFraudWarning(warned: StripeObject): StripeObject {
  return {
    id: newId("issfr"),
    object: "radar.early_fraud_warning",
    actionable: true,
    charge: warned.id,
    created: now(),
    fraud_type: "misc",
    livemode: false,
    payment_intent: warned.payment_intent,
  };
}

/** Which fields of which objects `expand[]` can replace by their object, and from which collection. */
export const EXPANDABLE: Record<string, Record<string, Collection>> = {
  price: { product: "product" },
  "checkout.session": {
    customer: "customer",
    payment_intent: "payment_intent",
    subscription: "subscription",
    invoice: "invoice",
  },
  item: {},
  payment_intent: { customer: "customer", latest_charge: "charge" },
  charge: { customer: "customer", payment_intent: "payment_intent" },
  refund: { charge: "charge", payment_intent: "payment_intent" },
  dispute: { charge: "charge", payment_intent: "payment_intent" },
  product: { default_price: "price" },
  customer: { test_clock: "test_helpers.test_clock" },
  subscription: {
    customer: "customer",
    default_payment_method: "payment_method",
    latest_invoice: "invoice",
    schedule: "subscription_schedule",
    test_clock: "test_helpers.test_clock",
  },
  invoice: { customer: "customer", default_payment_method: "payment_method", test_clock: "test_helpers.test_clock" },
  invoice_payment: { invoice: "invoice" },
  subscription_schedule: {
    customer: "customer",
    subscription: "subscription",
    test_clock: "test_helpers.test_clock",
  },
  payment_method: { customer: "customer" },
  "test_helpers.test_clock": {},
  "billing_portal.session": {},
};

/**
 * Applies `expand[]` paths to an answer, as Stripe does: `customer` on an object, `data.product`
 * in a list, nested paths up to four levels. A session's `line_items` (absent unless expanded)
 * come from the store. A path Stripe could not expand is refused with its error.
 */
export function expand(answer: StripeObject | ListAnswer, paths: string[], store: Store): void {
  for (const path of paths) {
    const parts = path.split(".");
    if (parts.length > 4) {
      throw invalid(`You cannot expand more than 4 levels of a property. Property: ${path}`, "expand");
    }
    expandPath(answer as Record<string, unknown>, parts, path, store);
  }
}

function expandPath(target: Record<string, unknown>, parts: string[], path: string, store: Store): void {
  const [head, ...rest] = parts as [string, ...string[]];
  const kind = target.object as string;
  if (kind === "list" && head === "data") {
    if (rest.length === 0) throw cannotExpand(path);
    for (const item of target.data as Record<string, unknown>[]) expandPath(item, rest, path, store);
    return;
  }
  if (kind === "checkout.session" && head === "line_items") {
    if (!target.line_items) target.line_items = lineItemList(target.id as string, store, 10).answer;
  } else if (kind === "invoice" && head === "payments") {
    // Includable: "there is an includable payments property containing the first handful" (InvoicePayments).
    if (!target.payments) target.payments = invoicePaymentList(target.id as string, store);
  } else {
    const collection = EXPANDABLE[kind]?.[head];
    if (!collection) {
      // An object already in full (a line item's price) can be walked into, not expanded.
      const value = target[head];
      if (rest.length > 0 && value && typeof value === "object" && !Array.isArray(value)) {
        expandPath(value as Record<string, unknown>, rest, path, store);
        return;
      }
      throw cannotExpand(path);
    }
    const value = target[head];
    if (typeof value === "string") target[head] = structuredClone(store.get(collection, value) ?? value);
  }
  const next = target[head];
  if (rest.length > 0 && next && typeof next === "object")
    expandPath(next as Record<string, unknown>, rest, path, store);
}

const cannotExpand = (path: string) => invalid(`This property cannot be expanded (${path}).`, "expand");

export interface ListAnswer {
  object: "list";
  data: StripeObject[];
  has_more: boolean;
  url: string;
}

/**
 * One page of `items` (newest first), as Stripe pages a list: at most `limit` (default 10, at
 * most 100), after `starting_after` or before `ending_before` (an object of the same kind, in
 * the list or not), `has_more` when the page is not the end in that direction.
 */
export function page(
  items: Stored[],
  reader: Reader,
  url: string,
  cursor: (id: string, param: string) => Stored | undefined,
): ListAnswer {
  const limit = reader.integer("limit", { min: 1, max: 100 }) ?? 10;
  const after = reader.string("starting_after");
  const before = reader.string("ending_before");
  if (after && before) {
    throw invalid("You may only specify one of these parameters: ending_before, starting_after.", "ending_before");
  }
  const sorted = [...items].sort(newestFirst);
  let data: Stored[];
  let hasMore: boolean;
  if (after) {
    const mark = cursor(after, "starting_after")!;
    const older = sorted.filter((item) => newestFirst(mark, item) < 0);
    data = older.slice(0, limit);
    hasMore = older.length > limit;
  } else if (before) {
    const mark = cursor(before, "ending_before")!;
    const newer = sorted.filter((item) => newestFirst(item, mark) < 0);
    data = newer.slice(Math.max(0, newer.length - limit));
    hasMore = newer.length > limit;
  } else {
    data = sorted.slice(0, limit);
    hasMore = sorted.length > limit;
  }
  return { object: "list", data: data.map((item) => structuredClone(item.data)), has_more: hasMore, url };
}

/** The cursor object for a list of `collection`, or Stripe's resource_missing on the cursor param. */
export function cursorIn(store: Store, collection: Collection, objectName: string = collection) {
  return (id: string, param: string): Stored => {
    const stored = store.state.objects[collection][id];
    if (!stored) throw noSuch(objectName, id, param);
    return stored;
  };
}

/** An invoice's payments (InvoicePayment), newest first, as its includable `payments` list. */
export function invoicePaymentList(invoiceId: string, store: Store): ListAnswer {
  const data = store
    .all("invoice_payment")
    .filter((p) => p.data.invoice === invoiceId)
    .map((p) => structuredClone(p.data));
  return {
    object: "list",
    data: data.slice(0, 10),
    has_more: data.length > 10,
    url: `/v1/invoice_payments?invoice=${invoiceId}`,
  };
}

/** A session's line items as a list answer (they are not kept as objects of their own). */
export function lineItemList(sessionId: string, store: Store, limit: number, reader?: Reader) {
  const items = store.state.checkout[sessionId]?.lineItems ?? [];
  const stored: Stored[] = items.map((data, index) => ({ seq: items.length - index, data }));
  const url = `/v1/checkout/sessions/${sessionId}/line_items`;
  if (!reader) {
    return {
      answer: {
        object: "list" as const,
        data: structuredClone(items.slice(0, limit)),
        has_more: items.length > limit,
        url,
      },
    };
  }
  const byId = new Map(stored.map((s) => [s.data.id, s]));
  return {
    answer: page(stored, reader, url, (id, param) => {
      const found = byId.get(id);
      if (!found) throw noSuch("line item", id, param);
      return found;
    }),
  };
}
