/**
 * What happens to a Checkout Session after it is made, as Stripe does it, and the events each
 * step sends: paying on the hosted page (the PaymentIntent is made at the first attempt, as
 * Stripe makes it lazily; a card is charged at once, a US bank account debit stays `processing`
 * with a pending charge until it settles or fails), a 3-D Secure card's authentication (the
 * PaymentIntent `requires_action` until the buyer completes or fails it), an issuer's decline (a
 * failed charge, the session stays open), settling or failing a bank debit, refunds (and the
 * later failure of a refund of the test card whose refunds fail), and expiry (asked for, or when
 * `expires_at` passes), and the disputes and early fraud warnings of the test cards that make them
 * (./disputes.ts). A succeeded charge gets its receipt page, and its receipt e-mail when it
 * has an address (./receipts.ts); a refund its refund receipt. What Stripe does later on its own
 * (a test refund that fails, a dispute decided by its test evidence) waits on timers kept in the
 * store, so a restart resumes them. Shared by the API, the hosted page, the local dashboard and
 * the programmatic handle tests use. Dev and test only.
 */
import { type Billing, createBilling } from "./billing.ts";
import { createDisputes, DEFAULT_DISPUTE_DECISION_DELAY_MS, type Disputes } from "./disputes.ts";
import * as objects from "./objects.ts";
import { invalid, noSuch, StripeError } from "./params.ts";
import type { Receipts } from "./receipts.ts";
import { newId, type Store, type StripeObject } from "./store.ts";
import type { Deliverer } from "./webhooks.ts";

/** The API request an event came from (`event.request`); null ids for the hosted page's own steps. */
export interface Origin {
  id: string | null;
  idempotency_key: string | null;
}
export const NO_REQUEST: Origin = { id: null, idempotency_key: null };

/** An issuer's answer for a test card that is declined (Stripe's test cards and their messages). */
export interface Decline {
  code: string;
  declineCode: string | null;
  message: string;
}

export interface PayInput {
  email: string;
  name: string | null;
  method: objects.Method;
  /** The issuer's decline, for a test card that is declined (after authentication, when it asks for one). */
  decline?: Decline;
  /** A 3-D Secure test card: the buyer must authenticate before the card is charged. */
  authenticate?: boolean;
  /** The test card whose refunds fail some time after they are made (4000 0000 0000 5126). */
  refundsFail?: boolean;
  /** A dispute test card: the charge succeeds, then is disputed (docs: Testing, Disputes). */
  dispute?: objects.DisputeKind;
  /** The test card whose charge succeeds, then receives an early fraud warning (4000 0000 0000 5423). */
  earlyFraudWarning?: boolean;
  /** The test card that attaches to a customer but whose every charge is declined (4000 0000 0000 0341). */
  declinesLater?: Decline;
}

/** Paid (the session is complete), declined (the buyer sees why), or waiting for the buyer to authenticate. */
export type PayResult =
  { status: "paid"; session: StripeObject } | { status: "declined"; message: string } | { status: "authenticate" };

/** What the buyer sees when they fail 3-D Secure (Checkout's message for `payment_intent_authentication_failure`). */
export const AUTHENTICATION_FAILED =
  "We are unable to authenticate your payment method. Please choose a different payment method and try again.";

/** How long after it is made a refund of the failing-refund test card fails, by default. */
export const DEFAULT_REFUND_FAILURE_DELAY_MS = 5_000;

/** What Stripe does later on its own, each kept in the store's `testing` by id with when it is due. */
const LATER = ["refundFailures", "disputeDecisions"] as const;
type Later = (typeof LATER)[number];

export interface Payments {
  store: Store;
  disputes: Disputes;
  /** Subscriptions, invoices, schedules and test clocks (./billing.ts). */
  billing: Billing;
  /** Makes an event of `object` as it is now (at `created`, a test clock's time) and queues its delivery. */
  emit(
    type: string,
    object: StripeObject,
    origin: Origin,
    previous?: Record<string, unknown>,
    created?: number,
  ): StripeObject;
  pay(sessionId: string, input: PayInput): PayResult;
  /** The buyer completes or fails the 3-D Secure step of the session's payment. */
  authenticate(sessionId: string, outcome: "complete" | "fail"): PayResult;
  /** The payment waiting for the buyer to authenticate, if any. */
  awaitingAuthentication(sessionId: string): PayInput | undefined;
  settle(sessionId: string): StripeObject;
  fail(sessionId: string): StripeObject;
  refund(
    target: { paymentIntent?: string; charge?: string },
    options: { amount?: number; reason?: string | null; metadata?: Record<string, string> },
    origin: Origin,
  ): StripeObject;
  expire(sessionId: string, origin: Origin): StripeObject;
  /** Expires every open session whose `expires_at` has passed, and does what is due later (Stripe does both on its own). */
  sweep(): void;
  /** Whether a refund is waiting to fail or a dispute to be decided (false once closed). */
  waiting(): boolean;
  /** Resolves when nothing is waiting, or on close. */
  idle(): Promise<void>;
  close(): void;
}

const clone = <T>(value: T): T => structuredClone(value);

export function createPayments(
  store: Store,
  deliverer: Deliverer,
  brand: string,
  receipts: Receipts,
  options: {
    refundFailureDelayMs?: number;
    disputeDecisionDelayMs?: number;
    authenticationUrl?: (sessionId: string) => string;
    /** The hosted page of an invoice. */
    invoiceUrl?: (invoiceId: string) => string;
  } = {},
): Payments {
  const delays: Record<Later, number> = {
    refundFailures: options.refundFailureDelayMs ?? DEFAULT_REFUND_FAILURE_DELAY_MS,
    disputeDecisions: options.disputeDecisionDelayMs ?? DEFAULT_DISPUTE_DECISION_DELAY_MS,
  };
  const timers = new Map<string, NodeJS.Timeout>();
  let idleWaiters: (() => void)[] = [];
  let closed = false;

  const emit: Payments["emit"] = (type, object, origin, previous, created) => {
    const event = objects.event({ type, object, request: origin, previous, created });
    store.put("event", event);
    deliverer.enqueue(event);
    return event;
  };
  const billing = createBilling({
    store,
    emit,
    receipts,
    brand,
    invoiceUrl: options.invoiceUrl ?? ((id) => id),
  });
  const disputes = createDisputes({
    store,
    emit,
    decideLater(disputeId) {
      store.state.testing.disputeDecisions[disputeId] = Date.now() + delays.disputeDecisions;
      schedule("disputeDecisions", disputeId);
    },
  });

  const session = (id: string) => {
    const found = store.get("checkout.session", id);
    if (!found) throw noSuch("checkout.session", id);
    return found;
  };
  const intentOf = (s: StripeObject) => {
    const id = s.payment_intent as string | null;
    return id ? store.get("payment_intent", id) : undefined;
  };

  /** The session's PaymentIntent, made at the buyer's first attempt (payment_intent.created). */
  function ensureIntent(s: StripeObject): StripeObject {
    const existing = intentOf(s);
    if (existing) return existing;
    const extras = store.state.checkout[s.id];
    const intent = objects.paymentIntent({
      amount: s.amount_total as number,
      currency: s.currency as string,
      customer: s.customer as string | null,
      metadata: extras?.paymentIntentData.metadata ?? {},
    });
    intent.description = extras?.paymentIntentData.description ?? null;
    intent.receipt_email = extras?.paymentIntentData.receiptEmail ?? null;
    intent.setup_future_usage = extras?.setupFutureUsage ?? null;
    intent.payment_method_types = clone(s.payment_method_types);
    store.put("payment_intent", intent);
    s.payment_intent = intent.id;
    emit("payment_intent.created", intent, NO_REQUEST);
    return intent;
  }

  /** A minimal PaymentMethod, as a PaymentIntent's `last_payment_error.payment_method` shows it. */
  function paymentMethodOf(id: string, input: PayInput) {
    const billing = { address: null, email: input.email, name: input.name, phone: null, tax_id: null };
    return input.method.type === "card"
      ? {
          id,
          object: "payment_method",
          billing_details: billing,
          card: {
            brand: input.method.card.brand,
            exp_month: input.method.card.expMonth,
            exp_year: input.method.card.expYear,
            funding: input.method.card.funding,
            last4: input.method.card.last4,
          },
          created: objects.now(),
          customer: null,
          livemode: false,
          metadata: {},
          type: "card",
        }
      : {
          id,
          object: "payment_method",
          billing_details: billing,
          created: objects.now(),
          customer: null,
          livemode: false,
          metadata: {},
          type: "us_bank_account",
          us_bank_account: {
            account_holder_type: "individual",
            account_type: "checking",
            bank_name: "STRIPE TEST BANK",
            last4: input.method.bank.last4,
            routing_number: input.method.bank.routingNumber,
          },
        };
  }

  function complete(s: StripeObject, input: PayInput, paid: boolean) {
    s.status = "complete";
    s.payment_status = paid ? "paid" : "unpaid";
    s.url = null;
    s.customer_details = objects.customerDetails(input.email, input.name);
    s.collected_information = { business_name: null, individual_name: null, shipping_details: null };
  }

  /** Checkout's customer: a new one with customer_creation=always; an existing one gets the e-mail if it had none. */
  function settleCustomer(s: StripeObject, input: PayInput, intent: StripeObject) {
    if (!s.customer && s.customer_creation === "always") {
      const made = objects.customer({ email: input.email, name: input.name });
      store.put("customer", made);
      emit("customer.created", made, NO_REQUEST);
      s.customer = made.id;
      intent.customer = made.id;
      return;
    }
    const existing = s.customer ? store.get("customer", s.customer as string) : undefined;
    if (existing && !existing.email) {
      existing.email = input.email;
      emit("customer.updated", existing, NO_REQUEST, { email: null });
    }
  }

  /** Charges the session's payment method: declined, paid by card, or a bank debit pending. */
  function charge(
    s: StripeObject,
    intent: StripeObject,
    input: PayInput,
    paymentMethod: string,
    threeDSecure: Record<string, unknown> | null,
  ): PayResult {
    const chargeOf = (status: "succeeded" | "pending" | "failed", failure?: Decline) => {
      const made = objects.charge({
        intent,
        method: input.method,
        paymentMethod,
        email: input.email,
        name: input.name,
        status,
        failure,
        brand,
        threeDSecure,
      });
      store.put("charge", made);
      intent.latest_charge = made.id;
      return made;
    };

    // The card that "attaches … but attempts to charge the customer fail" fails its first charge too.
    const decline = input.decline ?? input.declinesLater;
    if (decline) {
      const failed = chargeOf("failed", decline);
      intent.payment_method = null;
      intent.status = "requires_payment_method";
      intent.last_payment_error = {
        charge: failed.id,
        code: decline.code,
        ...(decline.declineCode ? { decline_code: decline.declineCode } : {}),
        doc_url: `https://stripe.com/docs/error-codes/${decline.code.replaceAll("_", "-")}`,
        message: decline.message,
        payment_method: paymentMethodOf(paymentMethod, input),
        type: "card_error",
      };
      emit("charge.failed", failed, NO_REQUEST);
      emit("payment_intent.payment_failed", intent, NO_REQUEST);
      store.save();
      return { status: "declined", message: decline.message };
    }

    settleCustomer(s, input, intent);
    // `setup_future_usage`: "If a Customer has been provided or Checkout creates a new Customer,
    // Checkout will attach the payment method to the Customer" (Session `payment_intent_data`).
    if (store.state.checkout[s.id]?.setupFutureUsage && intent.customer && input.method.type === "card") {
      billing.saveCard(intent.customer as string, input, paymentMethod);
    }
    intent.last_payment_error = null;
    let paid: StripeObject | undefined;
    if (input.method.type === "card") {
      paid = chargeOf("succeeded");
      paid.customer = intent.customer;
      paid.receipt_url = receipts.urlOf(paid.id);
      if (input.refundsFail) store.state.testing.refundsFail[paid.id] = true;
      intent.status = "succeeded";
      intent.amount_received = intent.amount;
      complete(s, input, true);
      emit("charge.succeeded", paid, NO_REQUEST);
      emit("payment_intent.succeeded", intent, NO_REQUEST);
      // Stripe e-mails the receipt after the charge: the event shows no receipt_number yet.
      receipts.paid(paid);
    } else {
      // ACH debits take days: the charge is pending and the session completes unpaid.
      const pending = chargeOf("pending");
      pending.customer = intent.customer;
      intent.status = "processing";
      complete(s, input, false);
      emit("payment_intent.processing", intent, NO_REQUEST);
      emit("charge.pending", pending, NO_REQUEST);
    }
    emit("checkout.session.completed", s, NO_REQUEST);
    // The test cards' later troubles: "charge succeeds, only to be disputed" or "to receive an early fraud warning".
    if (paid && input.dispute) disputes.open(paid, input.dispute);
    if (paid && input.earlyFraudWarning) disputes.warn(paid);
    store.save();
    return { status: "paid", session: s };
  }

  /**
   * A refund of the failing-refund test card fails: "its status begins as succeeded. Some time
   * later, its status transitions to failed and sends a charge.refund.updated webhook event"
   * (docs: Testing, Refunds, 4000 0000 0000 5126), with `refund.updated` and `refund.failed`
   * (the Refund events). The amount no longer counts as refunded on the charge, whose funds stay
   * with the business (`failure_balance_transaction` reverses the refund's).
   */
  function failRefund(refundId: string) {
    const refund = store.get("refund", refundId);
    const paid = refund ? store.get("charge", refund.charge as string) : undefined;
    if (refund && paid && refund.status !== "failed") {
      const previous = { failure_balance_transaction: null, failure_reason: null, status: refund.status };
      refund.status = "failed";
      refund.failure_balance_transaction = newId("txn");
      refund.failure_reason = "expired_or_canceled_card";
      paid.amount_refunded = (paid.amount_refunded as number) - (refund.amount as number);
      paid.refunded = false;
      emit("charge.refund.updated", refund, NO_REQUEST, previous);
      emit("refund.updated", refund, NO_REQUEST, previous);
      emit("refund.failed", refund, NO_REQUEST);
      store.save();
    }
  }

  const runLater: Record<Later, (id: string) => void> = {
    refundFailures: failRefund,
    disputeDecisions: (id) => disputes.decide(id),
  };
  const waiting = () => !closed && LATER.some((kind) => Object.keys(store.state.testing[kind]).length > 0);

  /** Does what was due for `id` now, once, and wakes `idle()` when nothing else waits. */
  function runDue(kind: Later, id: string) {
    const key = `${kind} ${id}`;
    clearTimeout(timers.get(key));
    timers.delete(key);
    if (!(id in store.state.testing[kind])) return;
    delete store.state.testing[kind][id];
    runLater[kind](id);
    store.save();
    if (!waiting()) {
      const resolved = idleWaiters;
      idleWaiters = [];
      for (const resolve of resolved) resolve();
    }
  }

  /** Runs what is due for `id` at the time the store keeps for it. */
  function schedule(kind: Later, id: string) {
    const key = `${kind} ${id}`;
    const due = store.state.testing[kind][id] ?? Date.now();
    clearTimeout(timers.get(key));
    const timer = setTimeout(() => runDue(kind, id), Math.max(0, due - Date.now()));
    timer.unref();
    timers.set(key, timer);
  }

  /**
   * Pays a subscription-mode session: the card's first charge is the first invoice's (./billing.ts
   * makes the customer, saves the card as the subscription's default payment method, makes the
   * subscription and its paid invoice), then the session completes with `subscription` and
   * `invoice` set. A declined card leaves nothing behind and the session open (the stand-in's
   * simplification: Stripe's objects for a refused first payment in Checkout are not documented).
   * A 3-D Secure card is authenticated first, as in payment mode.
   */
  function subscribe(s: StripeObject, input: PayInput, paymentMethod: string): PayResult {
    const extras = store.state.checkout[s.id];
    if (extras) delete extras.authentication;
    if (input.authenticate) {
      if (extras) extras.authentication = { ...input, paymentMethod };
      store.save();
      return { status: "authenticate" };
    }
    const decline = input.decline ?? input.declinesLater;
    if (decline) return { status: "declined", message: decline.message };
    billing.checkout(s, input, paymentMethod);
    complete(s, input, true);
    emit("checkout.session.completed", s, NO_REQUEST, undefined, billing.timeOf(s.customer as string));
    store.save();
    return { status: "paid", session: s };
  }

  function authenticateSubscription(s: StripeObject, outcome: "complete" | "fail"): PayResult {
    const pending = store.state.checkout[s.id]?.authentication;
    if (!pending) {
      return { status: "declined", message: "This payment is not waiting for authentication. Enter your card again." };
    }
    delete store.state.checkout[s.id]!.authentication;
    if (outcome === "fail") return { status: "declined", message: AUTHENTICATION_FAILED };
    return subscribe(s, { ...pending, authenticate: false }, pending.paymentMethod);
  }

  const payments: Payments = {
    store,
    disputes,
    billing,
    emit,

    pay(sessionId, input) {
      const s = session(sessionId);
      if (s.status !== "open") return { status: "declined", message: closedMessage(s) };
      if (s.mode === "subscription") return subscribe(s, input, newId("pm"));
      const intent = ensureIntent(s);
      const extras = store.state.checkout[s.id];
      if (extras) delete extras.authentication;
      const paymentMethod = newId("pm");
      intent.payment_method = paymentMethod;
      if (input.authenticate) {
        // The issuer asks for 3-D Secure: nothing is charged until the buyer answers it.
        intent.status = "requires_action";
        intent.last_payment_error = null;
        intent.next_action = {
          type: "use_stripe_sdk",
          use_stripe_sdk: {
            type: "three_d_secure_redirect",
            source: newId("src"),
            stripe_js: options.authenticationUrl?.(s.id) ?? "",
          },
        };
        if (extras) extras.authentication = { ...input, paymentMethod };
        emit("payment_intent.requires_action", intent, NO_REQUEST);
        store.save();
        return { status: "authenticate" };
      }
      return charge(s, intent, input, paymentMethod, null);
    },

    authenticate(sessionId, outcome) {
      const s = session(sessionId);
      if (s.status !== "open") return { status: "declined", message: closedMessage(s) };
      if (s.mode === "subscription") return authenticateSubscription(s, outcome);
      const intent = intentOf(s);
      const extras = store.state.checkout[s.id];
      const pending = extras?.authentication;
      if (!intent || !pending || intent.status !== "requires_action") {
        return {
          status: "declined",
          message: "This payment is not waiting for authentication. Enter your card again.",
        };
      }
      delete extras.authentication;
      intent.next_action = null;
      if (outcome === "fail") {
        // No charge: the issuer never saw an authorization (Stripe makes none for a failed 3-D Secure).
        intent.status = "requires_payment_method";
        intent.payment_method = null;
        intent.last_payment_error = {
          code: "payment_intent_authentication_failure",
          doc_url: "https://stripe.com/docs/error-codes/payment-intent-authentication-failure",
          message:
            "The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.",
          payment_method: paymentMethodOf(pending.paymentMethod, pending),
          type: "invalid_request_error",
        };
        emit("payment_intent.payment_failed", intent, NO_REQUEST);
        store.save();
        return { status: "declined", message: AUTHENTICATION_FAILED };
      }
      return charge(s, intent, pending, pending.paymentMethod, objects.threeDSecure());
    },

    awaitingAuthentication(sessionId) {
      const s = store.get("checkout.session", sessionId);
      if (s?.mode === "subscription") return store.state.checkout[sessionId]?.authentication;
      const intent = s ? intentOf(s) : undefined;
      return intent?.status === "requires_action" ? store.state.checkout[sessionId]?.authentication : undefined;
    },

    settle(sessionId) {
      const s = session(sessionId);
      const intent = intentOf(s);
      const pending = intent?.latest_charge ? store.get("charge", intent.latest_charge as string) : undefined;
      if (!intent || intent.status !== "processing" || !pending) {
        throw new Error(`Checkout Session ${sessionId} has no bank payment waiting to settle`);
      }
      pending.status = "succeeded";
      pending.paid = true;
      pending.receipt_url = receipts.urlOf(pending.id);
      pending.amount_captured = pending.amount;
      pending.balance_transaction = newId("txn");
      pending.outcome = {
        advice_code: null,
        network_advice_code: null,
        network_decline_code: null,
        network_status: "approved_by_network",
        reason: null,
        risk_level: "not_assessed",
        seller_message: "Payment complete.",
        type: "authorized",
      };
      intent.status = "succeeded";
      intent.amount_received = intent.amount;
      s.payment_status = "paid";
      emit("charge.succeeded", pending, NO_REQUEST);
      emit("payment_intent.succeeded", intent, NO_REQUEST);
      emit("checkout.session.async_payment_succeeded", s, NO_REQUEST);
      receipts.paid(pending);
      store.save();
      return s;
    },

    fail(sessionId) {
      const s = session(sessionId);
      const intent = intentOf(s);
      const pending = intent?.latest_charge ? store.get("charge", intent.latest_charge as string) : undefined;
      if (!intent || intent.status !== "processing" || !pending) {
        throw new Error(`Checkout Session ${sessionId} has no bank payment waiting to settle`);
      }
      // R01, the most common ACH return: the bank account could not cover the debit.
      const message = "The customer's bank account has insufficient funds to cover this payment.";
      pending.status = "failed";
      pending.captured = false;
      pending.failure_code = "insufficient_funds";
      pending.failure_message = message;
      pending.outcome = {
        advice_code: null,
        network_advice_code: null,
        network_decline_code: null,
        network_status: "declined_by_network",
        reason: null,
        risk_level: "not_assessed",
        seller_message: message,
        type: "issuer_declined",
      };
      intent.status = "requires_payment_method";
      intent.last_payment_error = {
        code: "payment_intent_payment_attempt_failed",
        doc_url: "https://stripe.com/docs/error-codes/payment-intent-payment-attempt-failed",
        message,
        payment_method: { id: intent.payment_method, object: "payment_method", type: "us_bank_account" },
        type: "invalid_request_error",
      };
      intent.payment_method = null;
      emit("charge.failed", pending, NO_REQUEST);
      emit("payment_intent.payment_failed", intent, NO_REQUEST);
      emit("checkout.session.async_payment_failed", s, NO_REQUEST);
      store.save();
      return s;
    },

    refund(target, options, origin) {
      let paid: StripeObject | undefined;
      if (target.charge) {
        paid = store.get("charge", target.charge);
        if (!paid) throw noSuch("charge", target.charge, "charge");
      } else if (target.paymentIntent) {
        const intent = store.get("payment_intent", target.paymentIntent);
        if (!intent) throw noSuch("payment_intent", target.paymentIntent, "payment_intent");
        paid = intent.latest_charge ? store.get("charge", intent.latest_charge as string) : undefined;
        if (!paid || paid.status !== "succeeded") {
          throw invalid(
            `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`,
            "payment_intent",
          );
        }
      }
      if (!paid)
        throw invalid("One of the following params should be provided for this request: payment_intent or charge.");
      if (paid.status !== "succeeded") {
        throw invalid(`Charge ${paid.id} has not succeeded and cannot be refunded.`, "charge");
      }
      // The network has taken the money back already (Stripe's error code `charge_disputed`).
      if (disputes.chargedBack(paid.id)) {
        throw invalid(`Charge ${paid.id} has been charged back; cannot issue a refund.`, undefined, "charge_disputed");
      }
      const refundable = (paid.amount as number) - (paid.amount_refunded as number);
      if (refundable <= 0) {
        throw invalid(`Charge ${paid.id} has already been refunded.`, undefined, "charge_already_refunded");
      }
      const amount = options.amount ?? refundable;
      if (amount > refundable) {
        const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;
        throw invalid(
          `Refund amount (${dollars(amount)}) is greater than unrefunded amount on charge (${dollars(refundable)})`,
          "amount",
        );
      }
      const made = objects.refund({
        charge: paid,
        amount,
        reason: options.reason ?? null,
        metadata: options.metadata ?? {},
      });
      store.put("refund", made);
      if (store.state.testing.refundsFail[paid.id]) {
        store.state.testing.refundFailures[made.id] = Date.now() + delays.refundFailures;
        schedule("refundFailures", made.id);
      }
      const previous = { amount_refunded: paid.amount_refunded, refunded: paid.refunded };
      paid.amount_refunded = (paid.amount_refunded as number) + amount;
      paid.refunded = paid.amount_refunded === paid.amount;
      emit("charge.refunded", paid, origin, previous);
      emit("refund.created", made, origin);
      receipts.refunded(paid, made);
      store.save();
      return made;
    },

    expire(sessionId, origin) {
      const s = session(sessionId);
      if (s.status !== "open") {
        throw new StripeError(
          400,
          `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${String(s.status)}".`,
          { param: "session" },
        );
      }
      const intent = intentOf(s);
      if (intent && intent.status !== "canceled") {
        intent.status = "canceled";
        intent.canceled_at = objects.now();
        intent.cancellation_reason = "abandoned";
        emit("payment_intent.canceled", intent, origin);
      }
      s.status = "expired";
      s.url = null;
      emit("checkout.session.expired", s, origin);
      store.save();
      return s;
    },

    sweep() {
      const due = objects.now();
      for (const { data } of store.all("checkout.session")) {
        if (data.status === "open" && (data.expires_at as number) <= due) payments.expire(data.id, NO_REQUEST);
      }
      for (const kind of LATER) {
        for (const [id, at] of Object.entries(store.state.testing[kind])) if (at <= Date.now()) runDue(kind, id);
      }
      billing.sweep();
    },

    waiting: () => waiting() || billing.waiting(),

    async idle() {
      await billing.idle();
      if (!waiting()) return;
      await new Promise<void>((resolve) => idleWaiters.push(resolve));
    },

    close() {
      closed = true;
      billing.close();
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      const resolved = idleWaiters;
      idleWaiters = [];
      for (const resolve of resolved) resolve();
    },
  };
  // What a previous run left to do later is done when due.
  for (const kind of LATER) for (const id of Object.keys(store.state.testing[kind])) schedule(kind, id);
  return payments;
}

/** What the hosted page says of a session that can no longer be paid. */
export function closedMessage(s: StripeObject): string {
  if (s.status === "complete") return "This Checkout Session is complete: it has been paid, and cannot be paid again.";
  return "This Checkout Session has expired: it can no longer be paid. Return to the site to start again.";
}
