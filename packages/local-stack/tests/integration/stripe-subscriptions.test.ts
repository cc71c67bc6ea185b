/**
 * Subscriptions in the local stack's Stripe stand-in (packages/local-stack/src/stripe/billing.ts),
 * driven as the product drives Stripe: the real `stripe` library over HTTP, the hosted pages by
 * plain form POSTs, the events through a fixture `stripe-webhook` function that verifies each
 * signature. Each test names the Stripe rule it pins: stripe-node 23.1's `resources/*.d.ts`
 * (Prices, Checkout/Sessions, Subscriptions, Invoices, InvoicePayments, SubscriptionSchedules,
 * TestHelpers/TestClocks, BillingPortal/Sessions), read from the installed library so the shapes
 * stay pinned to the version the project uses, and Stripe's docs (Testing, Test clocks,
 * Subscription schedules, Automate payment retries, Customer portal). The stand-in keeps its state
 * in files, so one backend (PGlite) suffices.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack } from "../../src/harness.ts";
import { undeclared } from "../support/stripe-declared.ts";
import { cardFields, postForm, type Received, stripeClient, stripeFixture } from "../support/stripe-fixture.ts";

const fixture = stripeFixture("stripe-subscriptions-");
const none = { unknown: [], missing: [] };

const HOUR = 3600;
const DAY = 24 * HOUR;
/** Where the tests' test clocks start: 15 January 2027, 12:00 UTC. */
const T0 = Date.UTC(2027, 0, 15, 12) / 1000;
/** `n` months after `from`, same day and time (UTC), as Stripe bills a monthly price. */
const months = (n: number, from = T0) => {
  const d = new Date(from * 1000);
  return (
    Date.UTC(
      d.getUTCFullYear(),
      d.getUTCMonth() + n,
      d.getUTCDate(),
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
    ) / 1000
  );
};
const typesOf = (events: Received[]) => events.map((e) => e.type);

describe("Stripe stand-in subscriptions", () => {
  let stack: TestStack;
  let stripe: Stripe;
  let product: Stripe.Product;
  let monthly: Stripe.Price;

  beforeAll(async () => {
    stack = await startTestStack(
      { name: "PGlite" },
      {
        seed: false,
        functionsDir: fixture.functionsDir,
        config: { functions: { "stripe-webhook": { verifyJwt: false } } },
        stripe: { catalogue: false, retryDelaysMs: [300], timeoutMs: 2_000 },
      },
    );
    stripe = stripeClient(stack);
    product = await stripe.products.create({ name: "Coached Growth" });
    monthly = await stripe.prices.create({
      product: product.id,
      currency: "usd",
      unit_amount: 50_000,
      recurring: { interval: "month" },
      lookup_key: "coached_growth_monthly",
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    fixture.cleanup();
  });

  const newSubscriptionSession = (params: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
    stripe.checkout.sessions.create({
      mode: "subscription",
      line_items: [{ price: monthly.id, quantity: 1 }],
      success_url: `${stack.url}/thank-you?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${stack.url}/offer`,
      ...params,
    });

  /** Pays a subscription-mode session on its hosted page; answers the session, its subscription and invoice. */
  async function subscribe(card = "4242424242424242", params: Partial<Stripe.Checkout.SessionCreateParams> = {}) {
    const session = await newSubscriptionSession({ customer_email: "member@example.com", ...params });
    const paid = await postForm(session.url!, cardFields(card));
    expect(paid.status).toBe(303);
    const done = await stripe.checkout.sessions.retrieve(session.id);
    const subscription = await stripe.subscriptions.retrieve(done.subscription as string);
    const invoice = await stripe.invoices.retrieve(done.invoice as string, { expand: ["payments"] });
    return { session: done, subscription, invoice };
  }

  /** The events the webhook received about a customer's objects, by type, in the order they were made. */
  const eventsOf = async (customer: string) => {
    await stack.stripe.idle();
    const byCustomer = (r: Received) => r.object.customer === customer || r.object.id === customer;
    return stack.stripe
      .deliveries()
      .map((d) => fixture.received().find((r) => r.id === d.eventId))
      .filter((r): r is Received => r !== undefined && byCustomer(r));
  };

  /**
   * The types of the events made while `step` runs, in the order they were made, each delivered
   * to the webhook and verified there; with the events, for their objects.
   */
  async function eventsDuring(step: () => Promise<unknown>): Promise<Received[]> {
    await stack.stripe.idle();
    const before = new Set(stack.stripe.deliveries().map((d) => d.eventId));
    await step();
    await stack.stripe.idle();
    const made = stack.stripe.deliveries().filter((d) => !before.has(d.eventId));
    const got = fixture.received();
    return made.map((d) => {
      const event = got.find((r) => r.id === d.eventId);
      expect(event, `${d.type} delivered and verified`).toBeDefined();
      return event!;
    });
  }

  /** A customer on a new test clock frozen at `at`, and their subscription bought on the hosted page. */
  async function clockSubscriber(
    name: string,
    price: Stripe.Price,
    options: { at?: number; card?: string } = {},
  ): Promise<{ clock: Stripe.TestHelpers.TestClock; customer: Stripe.Customer; subscription: Stripe.Subscription }> {
    const clock = await stripe.testHelpers.testClocks.create({ frozen_time: options.at ?? T0, name });
    const customer = await stripe.customers.create({ email: `${name}@example.com`, test_clock: clock.id });
    const session = await newSubscriptionSession({
      customer: customer.id,
      line_items: [{ price: price.id, quantity: 1 }],
    });
    expect((await postForm(session.url!, cardFields(options.card ?? "4242424242424242"))).status).toBe(303);
    const subscription = await stripe.subscriptions.retrieve(
      (await stripe.checkout.sessions.retrieve(session.id)).subscription as string,
    );
    return { clock, customer, subscription };
  }

  /** Advances a clock: answered `advancing`, then `ready` at the new time once what was due has run. */
  async function advance(clock: Stripe.TestHelpers.TestClock, to: number) {
    const advancing = await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: to });
    expect(advancing).toMatchObject({ status: "advancing", status_details: { advancing: { target_frozen_time: to } } });
    await stack.stripe.idle();
    const ready = await stripe.testHelpers.testClocks.retrieve(clock.id);
    expect(ready).toMatchObject({ status: "ready", frozen_time: to, status_details: {} });
    return ready;
  }

  describe("recurring prices (Prices: `type: recurring`, `recurring`)", () => {
    it("makes a recurring price with its interval, found by lookup key, and refuses an interval longer than three years", async () => {
      expect(monthly).toMatchObject({
        type: "recurring",
        recurring: {
          interval: "month",
          interval_count: 1,
          meter: null,
          trial_period_days: null,
          usage_type: "licensed",
        },
        unit_amount: 50_000,
        lookup_key: "coached_growth_monthly",
      });
      expect(undeclared(monthly.recurring, "Prices.d.ts", "Price", "Recurring")).toEqual(none);
      const found = await stripe.prices.list({ lookup_keys: ["coached_growth_monthly"] });
      expect(found.data.map((p) => p.id)).toEqual([monthly.id]);
      expect((await stripe.prices.list({ type: "recurring", product: product.id })).data.map((p) => p.id)).toEqual([
        monthly.id,
      ]);
      const refused = await stripe.prices
        .create({
          product: product.id,
          currency: "usd",
          unit_amount: 100,
          recurring: { interval: "month", interval_count: 37 },
        })
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({
        statusCode: 400,
        param: "recurring[interval_count]",
        message: "Maximum of three years interval allowed (3 years, 36 months, or 156 weeks).",
      });
    });
  });

  describe("Checkout in subscription mode (Checkout Sessions create: mode, line_items, price_data, subscription_data)", () => {
    it("refuses what Stripe refuses for the mode, and a refused request makes nothing (no inline price kept)", async () => {
      const prices = (await stripe.prices.list({ limit: 100 })).data.length;
      const refusal = (params: Partial<Stripe.Checkout.SessionCreateParams>) =>
        newSubscriptionSession(params).catch((e: unknown) => e as Stripe.errors.StripeError);
      const oneTime = await stripe.prices.create({ product: product.id, currency: "usd", unit_amount: 90_000 });
      expect(await refusal({ line_items: [{ price: oneTime.id, quantity: 1 }] })).toMatchObject({
        statusCode: 400,
        message: "You must provide at least one recurring price in `subscription` mode when using prices.",
      });
      expect(await refusal({ mode: "payment" })).toMatchObject({
        message:
          "You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.",
      });
      expect(await refusal({ customer_creation: "always" })).toMatchObject({ param: "customer_creation" });
      expect(await refusal({ payment_intent_data: { setup_future_usage: "off_session" } })).toMatchObject({
        param: "payment_intent_data",
        message: "You can not pass `payment_intent_data` in `subscription` mode.",
      });
      expect(
        await refusal({
          mode: "payment",
          line_items: [{ price: oneTime.id, quantity: 1 }],
          subscription_data: { metadata: { offer: "x" } },
        }),
      ).toMatchObject({ param: "subscription_data" });
      expect(
        await refusal({
          line_items: [
            { price_data: { currency: "usd", product: product.id, unit_amount: 100 }, quantity: 1 },
            { price: oneTime.id, quantity: 1 },
          ],
        }),
      ).toMatchObject({ statusCode: 400 });
      expect(
        await refusal({
          line_items: [{ price_data: { currency: "usd", product: "prod_nope", unit_amount: 100 }, quantity: 1 }],
        }),
      ).toMatchObject({ code: "resource_missing", param: "line_items[0][price_data][product]" });
      // Only the one-time price made above is new.
      expect((await stripe.prices.list({ limit: 100 })).data.length).toBe(prices + 1);
    });

    it("makes a price of price_data (recurring or not) for the line item, and shows custom_text's submit message (Session `line_items[].price_data`, `custom_text`)", async () => {
      const session = await newSubscriptionSession({
        line_items: [
          {
            price_data: { currency: "usd", product: product.id, unit_amount: 25_000, recurring: { interval: "month" } },
            quantity: 1,
          },
        ],
        custom_text: { submit: { message: "You will be charged $250.00 each month for 6 months." } },
        subscription_data: { metadata: { offer: "instalments" } },
        expand: ["line_items"],
      });
      expect(session).toMatchObject({
        mode: "subscription",
        amount_total: 25_000,
        customer_creation: null,
        subscription: null,
        invoice: null,
        payment_method_collection: "always",
        custom_text: { submit: { message: "You will be charged $250.00 each month for 6 months." } },
      });
      const price = session.line_items!.data[0]!.price!;
      expect(price).toMatchObject({ type: "recurring", unit_amount: 25_000, product: product.id });
      expect(price.id).toMatch(/^price_/);
      const page = await (await fetch(session.url!)).text();
      expect(page).toContain("You will be charged $250.00 each month for 6 months.");
      expect(page).toContain("per month");
      expect(page).toContain(">Subscribe</button>");

      const payment = await stripe.checkout.sessions.create({
        mode: "payment",
        line_items: [{ price_data: { currency: "usd", product: product.id, unit_amount: 150_000 }, quantity: 1 }],
        success_url: `${stack.url}/thank-you`,
        payment_intent_data: { setup_future_usage: "off_session", metadata: { offer: "full" } },
        customer_creation: "always",
      });
      expect(payment).toMatchObject({ mode: "payment", amount_total: 150_000, customer_creation: "always" });
    });

    it("pays a subscription on the hosted page: customer, card as default payment method, active subscription, paid first invoice, and Stripe's events (Checkout subscription mode; Invoice `billing_reason: subscription_create`, `parent.subscription_details`, `payments`)", async () => {
      const { session, subscription, invoice } = await subscribe("4242424242424242", {
        subscription_data: { metadata: { offer: "membership" } },
        metadata: { order: "o-1" },
      });
      expect(session).toMatchObject({ status: "complete", payment_status: "paid", payment_intent: null });
      expect(session.customer).toMatch(/^cus_/);
      const customer = await stripe.customers.retrieve(session.customer as string);
      expect(customer).toMatchObject({ email: "member@example.com", name: "Ada Buyer" });
      expect(subscription).toMatchObject({
        object: "subscription",
        status: "active",
        customer: session.customer,
        currency: "usd",
        metadata: { offer: "membership" },
        cancel_at_period_end: false,
        latest_invoice: invoice.id,
        collection_method: "charge_automatically",
        schedule: null,
        test_clock: null,
      });
      const card = await stripe.paymentMethods.retrieve(subscription.default_payment_method as string);
      expect(card).toMatchObject({ type: "card", customer: session.customer, card: { brand: "visa", last4: "4242" } });
      const [item] = subscription.items.data;
      expect(item).toMatchObject({
        object: "subscription_item",
        quantity: 1,
        price: { id: monthly.id },
        plan: { id: monthly.id, interval: "month" },
      });
      // API 2025-03-31.basil and later: the period is on the items; a month from the start.
      expect(item!.current_period_start).toBe(subscription.start_date);
      const start = new Date(subscription.start_date * 1000);
      const nextMonth =
        Date.UTC(
          start.getUTCFullYear(),
          start.getUTCMonth() + 1,
          start.getUTCDate(),
          start.getUTCHours(),
          start.getUTCMinutes(),
          start.getUTCSeconds(),
        ) / 1000;
      expect(
        item!.current_period_end === nextMonth || new Date(nextMonth * 1000).getUTCDate() !== start.getUTCDate(),
      ).toBe(true);
      expect(invoice).toMatchObject({
        object: "invoice",
        status: "paid",
        billing_reason: "subscription_create",
        amount_due: 50_000,
        amount_paid: 50_000,
        amount_remaining: 0,
        attempt_count: 1,
        attempted: true,
        customer: session.customer,
        parent: {
          type: "subscription_details",
          subscription_details: { subscription: subscription.id, metadata: { offer: "membership" } },
        },
        next_payment_attempt: null,
      });
      expect(invoice.hosted_invoice_url).toBe(`${stack.url}/_local/stripe/invoices/${invoice.id}`);
      expect(invoice.lines.data).toMatchObject([
        {
          object: "line_item",
          amount: 50_000,
          description: "1 × Coached Growth (at $500.00 / month)",
          period: { start: item!.current_period_start, end: item!.current_period_end },
          pricing: { price_details: { price: monthly.id, product: product.id } },
          parent: { type: "subscription_item_details", subscription_item_details: { subscription_item: item!.id } },
        },
      ]);
      const [payment] = invoice.payments!.data;
      expect(payment).toMatchObject({
        object: "invoice_payment",
        status: "paid",
        amount_paid: 50_000,
        payment: { type: "payment_intent" },
      });
      const intent = await stripe.paymentIntents.retrieve(payment!.payment.payment_intent as string);
      expect(intent).toMatchObject({
        status: "succeeded",
        amount: 50_000,
        customer: session.customer,
        description: "Subscription creation",
      });

      const events = await eventsOf(session.customer as string);
      expect(events.map((e) => e.type)).toEqual([
        "customer.created",
        "payment_method.attached",
        "customer.subscription.created",
        "invoice.created",
        "invoice.finalized",
        "payment_intent.created",
        "charge.succeeded",
        "payment_intent.succeeded",
        "invoice.paid",
        "invoice.payment_succeeded",
        "customer.subscription.updated",
        "checkout.session.completed",
      ]);
      const completed = events.find((e) => e.type === "checkout.session.completed")!;
      expect(completed.object).toMatchObject({
        subscription: subscription.id,
        invoice: invoice.id,
        mode: "subscription",
      });
      expect(events.find((e) => e.type === "customer.subscription.created")!.object.status).toBe("incomplete");
      expect(events.find((e) => e.type === "customer.subscription.updated")!.previous).toMatchObject({
        status: "incomplete",
      });
    });

    it("asks a 3-D Secure card to authenticate before the subscription is made, as in payment mode (Testing: 3D Secure authentication, 4000 0025 0000 3155)", async () => {
      const session = await newSubscriptionSession({ customer_email: "secure@example.com" });
      const asked = await postForm(session.url!, cardFields("4000002500003155"));
      expect(asked.status).toBe(303);
      expect(asked.headers.get("location")).toBe(`/_local/stripe/checkout/${session.id}/authenticate`);
      expect((await stripe.checkout.sessions.retrieve(session.id)).subscription).toBeNull();
      const step = `${stack.url}${asked.headers.get("location")}`;
      expect((await fetch(step)).status).toBe(200);
      const done = await postForm(step, { outcome: "complete" });
      expect(done.status).toBe(303);
      const completed = await stripe.checkout.sessions.retrieve(session.id);
      expect(completed).toMatchObject({ status: "complete", payment_status: "paid" });
      expect((await stripe.subscriptions.retrieve(completed.subscription as string)).status).toBe("active");
    });

    it("saves the card of a payment-mode session with setup_future_usage on its customer, for a later schedule to charge (Session `payment_intent_data.setup_future_usage`)", async () => {
      const customer = await stripe.customers.create({ email: "full@example.com" });
      const oneTime = await stripe.prices.create({ product: product.id, currency: "usd", unit_amount: 150_000 });
      const session = await stripe.checkout.sessions.create({
        mode: "payment",
        customer: customer.id,
        line_items: [{ price: oneTime.id, quantity: 1 }],
        payment_intent_data: { setup_future_usage: "off_session", metadata: { offer: "full" } },
        success_url: `${stack.url}/thank-you`,
      });
      const events = await eventsDuring(async () => {
        expect((await postForm(session.url!, cardFields("4242424242424242"))).status).toBe(303);
      });
      expect(typesOf(events)).toContain("payment_method.attached");
      const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent"] });
      const intent = done.payment_intent as Stripe.PaymentIntent;
      expect(intent).toMatchObject({
        setup_future_usage: "off_session",
        metadata: { offer: "full" },
        status: "succeeded",
      });
      const card = await stripe.paymentMethods.retrieve(intent.payment_method as string);
      expect(card).toMatchObject({ customer: customer.id, card: { last4: "4242" } });
      const schedule = await stripe.subscriptionSchedules.create({
        customer: customer.id,
        start_date: Math.floor(Date.now() / 1000) + 30 * DAY,
        phases: [{ items: [{ price: monthly.id }] }],
        default_settings: { default_payment_method: card.id },
      });
      expect(schedule).toMatchObject({ status: "not_started", end_behavior: "release" });
    });

    it("declines 4000 0000 0000 0341 at checkout: the first payment is a charge, and the card's charges fail (Testing: decline after attaching)", async () => {
      const session = await newSubscriptionSession({ customer_email: "declined@example.com" });
      const refused = await postForm(session.url!, cardFields("4000000000000341"));
      expect(refused.status).toBe(402);
      expect(await refused.text()).toContain("Your card was declined.");
      expect((await stripe.checkout.sessions.retrieve(session.id)).status).toBe("open");
      expect((await stripe.customers.list({ email: "declined@example.com" })).data).toEqual([]);
    });
  });

  describe("Subscriptions (retrieve, list, update, cancel)", () => {
    it("lists a customer's subscriptions by status, not canceled ones by default (Subscriptions list `status`)", async () => {
      const { subscription } = await subscribe();
      const customer = subscription.customer as string;
      expect((await stripe.subscriptions.list({ customer })).data.map((s) => s.id)).toEqual([subscription.id]);
      expect((await stripe.subscriptions.list({ customer, status: "past_due" })).data).toEqual([]);
      await stripe.subscriptions.cancel(subscription.id);
      expect((await stripe.subscriptions.list({ customer })).data).toEqual([]);
      expect((await stripe.subscriptions.list({ customer, status: "canceled" })).data.map((s) => s.id)).toEqual([
        subscription.id,
      ]);
      expect((await stripe.subscriptions.list({ customer, status: "all" })).data).toHaveLength(1);
    });

    it("sets cancel_at_period_end with cancel_at, and cancels at once with customer.subscription.deleted (Subscriptions update, cancel)", async () => {
      const { subscription } = await subscribe();
      const end = subscription.items.data[0]!.current_period_end;
      const updated = await stripe.subscriptions.update(subscription.id, {
        cancel_at_period_end: true,
        metadata: { reason: "moving on" },
      });
      expect(updated).toMatchObject({
        status: "active",
        cancel_at_period_end: true,
        cancel_at: end,
        metadata: { reason: "moving on" },
        cancellation_details: { reason: "cancellation_requested" },
      });
      expect(updated.canceled_at).not.toBeNull();
      const refused = await stripe.subscriptions
        .update(subscription.id, { default_payment_method: "pm_not_theirs" })
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ statusCode: 400, code: "resource_missing", param: "default_payment_method" });
      const canceled = await stripe.subscriptions.cancel(subscription.id);
      expect(canceled).toMatchObject({ status: "canceled" });
      expect(canceled.ended_at).not.toBeNull();
      const events = await eventsOf(subscription.customer as string);
      const update = events.find(
        (e) => e.type === "customer.subscription.updated" && e.previous?.cancel_at_period_end === false,
      )!;
      expect(update.previous).toMatchObject({ cancel_at_period_end: false, cancel_at: null, metadata: {} });
      expect(events.at(-1)).toMatchObject({
        type: "customer.subscription.deleted",
        object: { id: subscription.id, status: "canceled" },
      });
    });

    it("answers with stripe-node's declared shapes: Subscription, its items and their plan, Invoice and its lines, InvoicePayment, PaymentMethod (resources/Subscriptions.d.ts, SubscriptionItems.d.ts, Plans.d.ts, Invoices.d.ts, InvoiceLineItems.d.ts, InvoicePayments.d.ts, PaymentMethods.d.ts)", async () => {
      const { subscription, invoice } = await subscribe();
      const item = subscription.items.data[0]!;
      expect(undeclared(subscription, "Subscriptions.d.ts", "Subscription")).toEqual(none);
      expect(undeclared(subscription.billing_mode, "Subscriptions.d.ts", "Subscription", "BillingMode")).toEqual(none);
      expect(
        undeclared(subscription.invoice_settings, "Subscriptions.d.ts", "Subscription", "InvoiceSettings"),
      ).toEqual(none);
      expect(
        undeclared(subscription.payment_settings, "Subscriptions.d.ts", "Subscription", "PaymentSettings"),
      ).toEqual(none);
      expect(
        undeclared(subscription.cancellation_details, "Subscriptions.d.ts", "Subscription", "CancellationDetails"),
      ).toEqual(none);
      expect(undeclared(item, "SubscriptionItems.d.ts", "SubscriptionItem")).toEqual(none);
      expect(undeclared(item.plan, "Plans.d.ts", "Plan")).toEqual(none);
      const { payments, ...shown } = invoice;
      expect(undeclared(shown, "Invoices.d.ts", "Invoice")).toEqual(none);
      expect(undeclared(invoice.parent, "Invoices.d.ts", "Invoice", "Parent")).toEqual(none);
      expect(
        undeclared(invoice.parent!.subscription_details, "Invoices.d.ts", "Invoice", "Parent", "SubscriptionDetails"),
      ).toEqual(none);
      expect(undeclared(invoice.status_transitions, "Invoices.d.ts", "Invoice", "StatusTransitions")).toEqual(none);
      expect(undeclared(invoice.automatic_tax, "Invoices.d.ts", "Invoice", "AutomaticTax")).toEqual(none);
      expect(undeclared(invoice.payment_settings, "Invoices.d.ts", "Invoice", "PaymentSettings")).toEqual(none);
      const line = invoice.lines.data[0]!;
      expect(undeclared(line, "InvoiceLineItems.d.ts", "InvoiceLineItem")).toEqual(none);
      expect(undeclared(line.parent, "InvoiceLineItems.d.ts", "InvoiceLineItem", "Parent")).toEqual(none);
      expect(
        undeclared(
          line.parent!.subscription_item_details,
          "InvoiceLineItems.d.ts",
          "InvoiceLineItem",
          "Parent",
          "SubscriptionItemDetails",
        ),
      ).toEqual(none);
      expect(undeclared(line.pricing, "InvoiceLineItems.d.ts", "InvoiceLineItem", "Pricing")).toEqual(none);
      expect(undeclared(payments!.data[0], "InvoicePayments.d.ts", "InvoicePayment")).toEqual(none);
      expect(undeclared(payments!.data[0]!.payment, "InvoicePayments.d.ts", "InvoicePayment", "Payment")).toEqual(none);
      const card = await stripe.paymentMethods.retrieve(subscription.default_payment_method as string);
      expect(undeclared(card, "PaymentMethods.d.ts", "PaymentMethod")).toEqual(none);
      expect(undeclared(card.card, "PaymentMethods.d.ts", "PaymentMethod", "Card")).toEqual(none);
    });
  });

  describe("Subscription Schedules (create from_subscription or for a start date, update phases with duration, cancel, release)", () => {
    it("makes a schedule of a subscription: its current period as the one phase, end_behavior release, the subscription's `schedule` set (Subscription schedules: from_subscription)", async () => {
      const { subscription } = await subscribe();
      const period = subscription.items.data[0]!;
      const events = await eventsDuring(async () => {
        const schedule = await stripe.subscriptionSchedules.create({ from_subscription: subscription.id });
        expect(schedule).toMatchObject({
          object: "subscription_schedule",
          status: "active",
          end_behavior: "release",
          subscription: subscription.id,
          customer: subscription.customer,
          current_phase: { start_date: period.current_period_start, end_date: period.current_period_end },
          phases: [
            {
              start_date: period.current_period_start,
              end_date: period.current_period_end,
              items: [{ price: monthly.id, plan: monthly.id, quantity: 1 }],
            },
          ],
        });
        expect((await stripe.subscriptions.retrieve(subscription.id)).schedule).toBe(schedule.id);
        const again = await stripe.subscriptionSchedules
          .create({ from_subscription: subscription.id })
          .catch((e: unknown) => e);
        expect(again).toMatchObject({ statusCode: 400, param: "from_subscription" });
        const mixed = await stripe.subscriptionSchedules
          .create({ from_subscription: subscription.id, end_behavior: "cancel" })
          .catch((e: unknown) => e);
        expect(mixed).toMatchObject({ statusCode: 400, param: "end_behavior" });
      });
      expect(typesOf(events)).toEqual(["subscription_schedule.created", "customer.subscription.updated"]);
    });

    it("sets N monthly instalments: one phase from the current start lasting `duration` months, end_behavior cancel, shown as the subscription's cancel_at; `iterations` is gone (SubscriptionScheduleUpdateParams.Phase `duration`, 2025-09-30.clover)", async () => {
      const { subscription } = await subscribe();
      const schedule = await stripe.subscriptionSchedules.create({ from_subscription: subscription.id });
      const start = schedule.phases[0]!.start_date;
      const refused = await stripe.subscriptionSchedules
        .update(schedule.id, {
          phases: [
            {
              items: [{ price: monthly.id }],
              start_date: start + 60,
              duration: { interval: "month", interval_count: 6 },
            },
          ],
        })
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({
        statusCode: 400,
        message: "You can not modify the start date of the current phase.",
      });
      const iterations = await stripe.subscriptionSchedules
        .update(schedule.id, {
          phases: [
            {
              items: [{ price: monthly.id }],
              start_date: start,
              iterations: 6,
            } as Stripe.SubscriptionScheduleUpdateParams.Phase,
          ],
        })
        .catch((e: unknown) => e);
      expect(iterations).toMatchObject({ code: "parameter_unknown", param: "phases[0][iterations]" });
      const events = await eventsDuring(async () => {
        const updated = await stripe.subscriptionSchedules.update(schedule.id, {
          end_behavior: "cancel",
          phases: [
            {
              items: [{ price: monthly.id, quantity: 1 }],
              start_date: start,
              duration: { interval: "month", interval_count: 6 },
            },
          ],
        });
        expect(updated).toMatchObject({
          end_behavior: "cancel",
          phases: [{ start_date: start, end_date: months(6, start) }],
          current_phase: { start_date: start, end_date: months(6, start) },
        });
        expect((await stripe.subscriptions.retrieve(subscription.id)).cancel_at).toBe(months(6, start));
      });
      expect(typesOf(events)).toEqual(["subscription_schedule.updated", "customer.subscription.updated"]);
      expect(events[0]!.previous).toMatchObject({ end_behavior: "release" });
      expect(events[1]!.previous).toMatchObject({ cancel_at: null });
      // A subscription on a schedule cancels through the schedule.
      const direct = await stripe.subscriptions
        .update(subscription.id, { cancel_at_period_end: true })
        .catch((e: unknown) => e);
      expect(direct).toMatchObject({ statusCode: 400 });
    });

    it("schedules a subscription to start later: not_started, its one phase lasting one interval, the card it will charge attached to the customer (Subscription schedules: start_date, default_settings)", async () => {
      const { subscription } = await subscribe();
      const customer = subscription.customer as string;
      const card = subscription.default_payment_method as string;
      const start = Math.floor(Date.now() / 1000) + 90 * DAY;
      const other = await stripe.customers.create({ email: "other@example.com" });
      const notTheirs = await stripe.subscriptionSchedules
        .create({
          customer: other.id,
          start_date: start,
          phases: [{ items: [{ price: monthly.id }] }],
          default_settings: { default_payment_method: card },
        })
        .catch((e: unknown) => e);
      expect(notTheirs).toMatchObject({ statusCode: 400, param: "default_settings[default_payment_method]" });
      const events = await eventsDuring(async () => {
        const schedule = await stripe.subscriptionSchedules.create({
          customer,
          start_date: start,
          end_behavior: "release",
          phases: [{ items: [{ price: monthly.id }] }],
          default_settings: { default_payment_method: card },
        });
        expect(schedule).toMatchObject({
          status: "not_started",
          subscription: null,
          current_phase: null,
          default_settings: { default_payment_method: card },
          phases: [{ start_date: start, end_date: months(1, start), items: [{ price: monthly.id, quantity: 1 }] }],
        });
        const listed = await stripe.subscriptionSchedules.list({ customer, scheduled: true });
        expect(listed.data.map((s) => s.id)).toEqual([schedule.id]);
        const canceled = await stripe.subscriptionSchedules.cancel(schedule.id);
        expect(canceled).toMatchObject({ status: "canceled" });
        expect(canceled.canceled_at).not.toBeNull();
        const twice = await stripe.subscriptionSchedules.cancel(schedule.id).catch((e: unknown) => e);
        expect(twice).toMatchObject({ statusCode: 400 });
      });
      expect(typesOf(events)).toEqual(["subscription_schedule.created", "subscription_schedule.canceled"]);
    });

    it("releases a schedule: the subscription goes on without it (subscription_schedule.released, released_subscription)", async () => {
      const { subscription } = await subscribe();
      const schedule = await stripe.subscriptionSchedules.create({ from_subscription: subscription.id });
      const released = await stripe.subscriptionSchedules.release(schedule.id);
      expect(released).toMatchObject({
        status: "released",
        released_subscription: subscription.id,
        subscription: null,
      });
      expect(await stripe.subscriptions.retrieve(subscription.id)).toMatchObject({ status: "active", schedule: null });
      expect(undeclared(released, "SubscriptionSchedules.d.ts", "SubscriptionSchedule")).toEqual(none);
      expect(undeclared(released.phases[0], "SubscriptionSchedules.d.ts", "SubscriptionSchedule", "Phase")).toEqual(
        none,
      );
      expect(
        undeclared(released.phases[0]!.items[0], "SubscriptionSchedules.d.ts", "SubscriptionSchedule", "Phase", "Item"),
      ).toEqual(none);
      expect(
        undeclared(released.default_settings, "SubscriptionSchedules.d.ts", "SubscriptionSchedule", "DefaultSettings"),
      ).toEqual(none);
    });
  });

  describe("test clocks (Test clocks: create, advance, delete; renewals, schedules and retries run in time order)", () => {
    it("makes a clock and its customer's objects at its frozen time, refuses to go back or further than two intervals of the shortest subscription, and deletes what it holds (TestClockAdvanceParams `frozen_time`; docs: Test clocks)", async () => {
      const { clock, customer, subscription } = await clockSubscriber("clock-rules", monthly);
      expect(clock).toMatchObject({
        object: "test_helpers.test_clock",
        status: "ready",
        frozen_time: T0,
        name: "clock-rules",
      });
      expect(undeclared(clock, "TestHelpers/TestClocks.d.ts", "TestClock")).toEqual(none);
      expect(customer).toMatchObject({ test_clock: clock.id, created: T0 });
      expect(subscription).toMatchObject({ test_clock: clock.id, created: T0, start_date: T0, status: "active" });
      expect(subscription.items.data[0]).toMatchObject({ current_period_start: T0, current_period_end: months(1) });
      const back = await stripe.testHelpers.testClocks
        .advance(clock.id, { frozen_time: T0 - 1 })
        .catch((e: unknown) => e);
      expect(back).toMatchObject({ statusCode: 400, param: "frozen_time" });
      // "Cannot be more than two intervals in the future from the shortest subscription in this test clock."
      const far = await stripe.testHelpers.testClocks
        .advance(clock.id, { frozen_time: months(2) + 1 })
        .catch((e: unknown) => e);
      expect(far).toMatchObject({ statusCode: 400, param: "frozen_time" });
      expect((await stripe.testHelpers.testClocks.retrieve(clock.id)).frozen_time).toBe(T0);
      await advance(clock, months(2));
      // "If there are no subscriptions in this test clock, it cannot be more than two years in the future."
      const empty = await stripe.testHelpers.testClocks.create({ frozen_time: T0 });
      const years = await stripe.testHelpers.testClocks
        .advance(empty.id, { frozen_time: Date.UTC(2029, 0, 15, 12) / 1000 + 1 })
        .catch((e: unknown) => e);
      expect(years).toMatchObject({ statusCode: 400, param: "frozen_time" });
      expect((await stripe.testHelpers.testClocks.list({ limit: 100 })).data.map((c) => c.id)).toContain(empty.id);
      const deleted = await stripe.testHelpers.testClocks.del(clock.id);
      expect(deleted).toEqual({ id: clock.id, object: "test_helpers.test_clock", deleted: true });
      const gone = await stripe.customers.retrieve(customer.id).catch((e: unknown) => e);
      expect(gone).toMatchObject({ statusCode: 404, code: "resource_missing" });
    });

    it("renews a month later with a good card: a subscription_cycle invoice made at the period's end, finalized and charged an hour later, with Stripe's events at the clock's time (docs: Subscription invoices, Test clocks)", async () => {
      const { clock, customer, subscription } = await clockSubscriber("renewal", monthly);
      const atEnd = await eventsDuring(() => advance(clock, months(1)));
      expect(typesOf(atEnd)).toEqual([
        "test_helpers.test_clock.advancing",
        "invoice.created",
        "customer.subscription.updated",
        "test_helpers.test_clock.ready",
      ]);
      const draft = atEnd[1]!.object;
      expect(draft).toMatchObject({ status: "draft", billing_reason: "subscription_cycle", created: months(1) });
      expect(draft.automatically_finalizes_at).toBe(months(1) + HOUR);
      expect(atEnd[2]!.previous).toHaveProperty("items");
      const charged = await eventsDuring(() => advance(clock, months(1) + 2 * HOUR));
      expect(typesOf(charged)).toEqual([
        "test_helpers.test_clock.advancing",
        "invoice.finalized",
        "payment_intent.created",
        "charge.succeeded",
        "payment_intent.succeeded",
        "invoice_payment.paid",
        "invoice.paid",
        "invoice.payment_succeeded",
        "test_helpers.test_clock.ready",
      ]);
      expect(charged.find((e) => e.type === "invoice.paid")!.created).toBe(months(1) + HOUR);
      const invoices = await stripe.invoices.list({ customer: customer.id });
      expect(invoices.data.map((i) => [i.billing_reason, i.status, i.amount_paid])).toEqual([
        ["subscription_cycle", "paid", 50_000],
        ["subscription_create", "paid", 50_000],
      ]);
      const [renewal] = invoices.data;
      expect(renewal).toMatchObject({ period_start: T0, period_end: months(1), attempt_count: 1 });
      expect(renewal!.lines.data[0]!.period).toEqual({ start: months(1), end: months(2) });
      const renewed = await stripe.subscriptions.retrieve(subscription.id);
      expect(renewed).toMatchObject({ status: "active", latest_invoice: renewal!.id });
      expect(renewed.items.data[0]).toMatchObject({ current_period_start: months(1), current_period_end: months(2) });
    });

    it("bills N instalments on a schedule that cancels at its end: after the last instalment is paid, the phase's end cancels the subscription and completes the schedule, and no further invoice (SubscriptionSchedule end_behavior cancel)", async () => {
      const instalment = await stripe.prices.create({
        product: product.id,
        currency: "usd",
        unit_amount: 25_000,
        recurring: { interval: "month" },
      });
      const { clock, customer, subscription } = await clockSubscriber("instalments", instalment);
      const schedule = await stripe.subscriptionSchedules.create({ from_subscription: subscription.id });
      await stripe.subscriptionSchedules.update(schedule.id, {
        end_behavior: "cancel",
        phases: [
          {
            items: [{ price: instalment.id, quantity: 1 }],
            start_date: T0,
            duration: { interval: "month", interval_count: 3 },
          },
        ],
      });
      await advance(clock, months(1) + HOUR);
      await advance(clock, months(2) + HOUR);
      const paid = await stripe.invoices.list({ customer: customer.id, status: "paid" });
      expect(paid.data.map((i) => i.amount_paid)).toEqual([25_000, 25_000, 25_000]);
      const last = await eventsDuring(() => advance(clock, months(3) + HOUR));
      expect(typesOf(last)).toEqual([
        "test_helpers.test_clock.advancing",
        "customer.subscription.deleted",
        "subscription_schedule.completed",
        "test_helpers.test_clock.ready",
      ]);
      expect(last[1]!).toMatchObject({ created: months(3), object: { status: "canceled", ended_at: months(3) } });
      expect(await stripe.subscriptionSchedules.retrieve(schedule.id)).toMatchObject({
        status: "completed",
        completed_at: months(3),
      });
      await advance(clock, months(5));
      expect((await stripe.invoices.list({ customer: customer.id })).data).toHaveLength(3);
    });

    it("starts a membership months later from a schedule: at its start date the subscription is made and its first invoice charged to the card in default_settings, and after its phase the schedule releases it (Subscription schedules: start_date, end_behavior release)", async () => {
      const membership = await stripe.prices.create({
        product: product.id,
        currency: "usd",
        unit_amount: 9_700,
        recurring: { interval: "month" },
      });
      const { clock, customer, subscription } = await clockSubscriber("membership", monthly);
      const start = months(2);
      const schedule = await stripe.subscriptionSchedules.create({
        customer: customer.id,
        start_date: start,
        end_behavior: "release",
        phases: [{ items: [{ price: membership.id }] }],
        default_settings: { default_payment_method: subscription.default_payment_method as string },
      });
      expect(schedule).toMatchObject({ status: "not_started", test_clock: clock.id, created: T0 });
      await stripe.subscriptions.cancel(subscription.id);
      await advance(clock, months(1));
      const started = await eventsDuring(() => advance(clock, start + HOUR));
      expect(typesOf(started)).toEqual([
        "test_helpers.test_clock.advancing",
        "customer.subscription.created",
        "invoice.created",
        "invoice.finalized",
        "payment_intent.created",
        "charge.succeeded",
        "payment_intent.succeeded",
        "invoice_payment.paid",
        "invoice.paid",
        "invoice.payment_succeeded",
        "customer.subscription.updated",
        "subscription_schedule.updated",
        "test_helpers.test_clock.ready",
      ]);
      const member = await stripe.subscriptionSchedules.retrieve(schedule.id);
      expect(member).toMatchObject({
        status: "active",
        current_phase: { start_date: start, end_date: months(1, start) },
      });
      const sub = await stripe.subscriptions.retrieve(member.subscription as string);
      expect(sub).toMatchObject({
        status: "active",
        start_date: start,
        schedule: schedule.id,
        default_payment_method: subscription.default_payment_method,
        items: { data: [{ price: { id: membership.id } }] },
      });
      const released = await eventsDuring(() => advance(clock, months(1, start) + HOUR));
      expect(typesOf(released).slice(1, 5)).toEqual([
        "subscription_schedule.released",
        "customer.subscription.updated",
        "invoice.created",
        "customer.subscription.updated",
      ]);
      expect(await stripe.subscriptions.retrieve(sub.id)).toMatchObject({ status: "active", schedule: null });
      expect((await stripe.invoices.list({ subscription: sub.id, status: "paid" })).data).toHaveLength(2);
    });

    it("fails renewals of 4000 0000 0000 0341 (attached as pm_card_chargeDeclinedAfterAttaching): past_due, then Stripe's retries on a custom schedule of 3, 5 and 7 days after the previous attempt, then the subscription left past due, as DEPLOY.md sets the account, and its next period billed (docs: Automate payment retries, custom retry schedule; Manage failed payments: leave the subscription past-due)", async () => {
      const { clock, customer, subscription } = await clockSubscriber("retries", monthly);
      const declining = await stripe.paymentMethods.attach("pm_card_chargeDeclinedAfterAttaching", {
        customer: customer.id,
      });
      expect(declining).toMatchObject({ customer: customer.id, card: { last4: "0341" } });
      await stripe.subscriptions.update(subscription.id, { default_payment_method: declining.id });
      const first = await eventsDuring(() => advance(clock, months(1) + HOUR));
      expect(typesOf(first)).toEqual([
        "test_helpers.test_clock.advancing",
        "invoice.created",
        "customer.subscription.updated",
        "invoice.finalized",
        "payment_intent.created",
        "charge.failed",
        "payment_intent.payment_failed",
        "invoice.payment_failed",
        "customer.subscription.updated",
        "test_helpers.test_clock.ready",
      ]);
      expect(first[8]!).toMatchObject({ object: { status: "past_due" }, previous: { status: "active" } });
      const [open] = (await stripe.invoices.list({ customer: customer.id, status: "open" })).data;
      expect(open).toMatchObject({
        attempt_count: 1,
        attempted: true,
        next_payment_attempt: months(1) + HOUR + 3 * DAY,
        amount_remaining: 50_000,
      });
      const failed = first.find((e) => e.type === "charge.failed")!.object;
      expect(failed).toMatchObject({ failure_code: "card_declined", outcome: { reason: "generic_decline" } });
      let due = open!.next_payment_attempt!;
      for (const [attempt, days] of [
        [2, 5],
        [3, 7],
      ] as const) {
        const retry = await eventsDuring(() => advance(clock, due));
        expect(typesOf(retry)).toEqual([
          "test_helpers.test_clock.advancing",
          "charge.failed",
          "payment_intent.payment_failed",
          "invoice.payment_failed",
          "test_helpers.test_clock.ready",
        ]);
        const now = await stripe.invoices.retrieve(open!.id);
        expect(now).toMatchObject({ status: "open", attempt_count: attempt, next_payment_attempt: due + days * DAY });
        due = now.next_payment_attempt!;
      }
      const lastTry = await eventsDuring(() => advance(clock, due));
      expect(typesOf(lastTry)).toEqual([
        "test_helpers.test_clock.advancing",
        "charge.failed",
        "payment_intent.payment_failed",
        "invoice.payment_failed",
        "test_helpers.test_clock.ready",
      ]);
      expect(await stripe.invoices.retrieve(open!.id)).toMatchObject({
        status: "open",
        attempt_count: 4,
        next_payment_attempt: null,
      });
      expect(await stripe.subscriptions.retrieve(subscription.id)).toMatchObject({ status: "past_due" });
      // The next period is billed as usual (and fails on the same card).
      await advance(clock, months(2) + HOUR);
      const invoices = (await stripe.invoices.list({ subscription: subscription.id, status: "open" })).data;
      expect(invoices).toHaveLength(2);
    });

    it("pays a failed invoice on its hosted invoice page with another card: invoice.paid and the subscription active again; invoices.pay answers a decline as a card error (Invoices pay; docs: Hosted invoice page)", async () => {
      const { clock, customer, subscription } = await clockSubscriber("hosted-invoice", monthly);
      const declining = await stripe.paymentMethods.attach("pm_card_chargeDeclinedAfterAttaching", {
        customer: customer.id,
      });
      await stripe.subscriptions.update(subscription.id, { default_payment_method: declining.id });
      await advance(clock, months(1) + HOUR);
      const [open] = (await stripe.invoices.list({ subscription: subscription.id, status: "open" })).data;
      const refused = await stripe.invoices.pay(open!.id).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(Stripe.errors.StripeCardError);
      expect(refused).toMatchObject({ statusCode: 402, code: "card_declined", decline_code: "generic_decline" });
      // A manual attempt after the first does not count (Invoice `attempt_count`).
      expect((await stripe.invoices.retrieve(open!.id)).attempt_count).toBe(1);
      const page = await fetch(open!.hosted_invoice_url!);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain("$500.00");
      expect(html).toContain('<label for="card_number">Card number</label>');
      const declined = await postForm(open!.hosted_invoice_url!, cardFields("4000000000000002"));
      expect(declined.status).toBe(402);
      expect(await declined.text()).toContain("Your card was declined.");
      const events = await eventsDuring(async () => {
        const paid = await postForm(open!.hosted_invoice_url!, cardFields("4242424242424242"));
        expect(paid.status).toBe(303);
      });
      expect(typesOf(events)).toEqual([
        "charge.succeeded",
        "payment_intent.succeeded",
        "invoice_payment.paid",
        "invoice.paid",
        "invoice.payment_succeeded",
        "customer.subscription.updated",
      ]);
      expect(events[5]!).toMatchObject({ object: { status: "active" }, previous: { status: "past_due" } });
      expect(await stripe.invoices.retrieve(open!.id)).toMatchObject({
        status: "paid",
        next_payment_attempt: null,
        amount_paid: 50_000,
      });
      expect(await (await fetch(open!.hosted_invoice_url!)).text()).toContain("This invoice has been paid.");
      const again = await stripe.invoices.pay(open!.id).catch((e: unknown) => e);
      expect(again).toMatchObject({ statusCode: 400, message: "Invoice is already paid" });
    });
  });

  describe("the customer portal (BillingPortal Sessions create; docs: Customer portal)", () => {
    /** A portal session for the customer, and its page's HTML. */
    async function portal(customer: string) {
      const session = await stripe.billingPortal.sessions.create({ customer, return_url: `${stack.url}/account` });
      const page = await fetch(session.url);
      expect(page.status).toBe(200);
      return { session, html: await page.text() };
    }

    it("makes a session whose url is the local portal: the customer's subscriptions with price and next charge date, the card, a link back to return_url (BillingPortal/Sessions.d.ts)", async () => {
      const { customer, subscription } = await clockSubscriber("portal-view", monthly);
      const { session, html } = await portal(customer.id);
      expect(session).toMatchObject({
        object: "billing_portal.session",
        customer: customer.id,
        return_url: `${stack.url}/account`,
        flow: null,
        livemode: false,
      });
      expect(session.url).toBe(`${stack.url}/_local/stripe/portal/${session.id}`);
      expect(undeclared(session, "BillingPortal/Sessions.d.ts", "Session")).toEqual(none);
      expect(html).toContain("Coached Growth");
      expect(html).toContain("$500.00 per month");
      expect(html).toContain(
        `Next charge on ${new Date(months(1) * 1000).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" })}`,
      );
      expect(html).toContain("Visa ending in 4242");
      expect(html).toContain(`href="${stack.url}/account"`);
      expect(html).toContain('<label for="card_number">Card number</label>');
      expect(html).toContain(`/subscriptions/${subscription.id}/cancel`);
      const unknown = await stripe.billingPortal.sessions.create({ customer: "cus_nope" }).catch((e: unknown) => e);
      expect(unknown).toMatchObject({ statusCode: 400, code: "resource_missing", param: "customer" });
    });

    it("replaces the card: the customer's and the subscription's new default, and an open invoice paid with it (Customer portal: payment method update)", async () => {
      const { clock, customer, subscription } = await clockSubscriber("portal-card", monthly);
      const declining = await stripe.paymentMethods.attach("pm_card_chargeDeclinedAfterAttaching", {
        customer: customer.id,
      });
      await stripe.subscriptions.update(subscription.id, { default_payment_method: declining.id });
      await advance(clock, months(1) + HOUR);
      expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe("past_due");
      const { session, html } = await portal(customer.id);
      expect(html).toContain("Payment failed");
      const declined = await postForm(`${session.url}/payment-method`, cardFields("4000000000000002"));
      expect(declined.status).toBe(402);
      const events = await eventsDuring(async () => {
        const replaced = await postForm(`${session.url}/payment-method`, cardFields("5555555555554444"));
        expect(replaced.status).toBe(303);
      });
      expect(typesOf(events)).toEqual([
        "payment_method.attached",
        "customer.updated",
        "customer.subscription.updated",
        "charge.succeeded",
        "payment_intent.succeeded",
        "invoice_payment.paid",
        "invoice.paid",
        "invoice.payment_succeeded",
        "customer.subscription.updated",
      ]);
      const card = events[0]!.object;
      expect(card).toMatchObject({ customer: customer.id, card: { brand: "mastercard", last4: "4444" } });
      expect(await stripe.customers.retrieve(customer.id)).toMatchObject({
        invoice_settings: { default_payment_method: card.id },
      });
      expect(await stripe.subscriptions.retrieve(subscription.id)).toMatchObject({
        status: "active",
        default_payment_method: card.id,
      });
      expect((await stripe.invoices.list({ customer: customer.id, status: "open" })).data).toEqual([]);
      expect(await (await fetch(session.url)).text()).toContain("Mastercard ending in 4444");
    });

    it("cancels at the end of the period, the portal's default, and the subscription ends then (Customer portal: cancel subscriptions at period end)", async () => {
      const { clock, customer, subscription } = await clockSubscriber("portal-cancel", monthly);
      const { session } = await portal(customer.id);
      const events = await eventsDuring(async () => {
        const canceled = await postForm(`${session.url}/subscriptions/${subscription.id}/cancel`, {});
        expect(canceled.status).toBe(303);
      });
      expect(typesOf(events)).toEqual(["customer.subscription.updated"]);
      expect(events[0]!).toMatchObject({
        object: { cancel_at_period_end: true, cancel_at: months(1), status: "active" },
        previous: { cancel_at_period_end: false },
      });
      const page = await (await fetch(session.url)).text();
      expect(page).toContain("Cancels on");
      expect(page).toContain("Don't cancel");
      const ended = await eventsDuring(() => advance(clock, months(1) + HOUR));
      expect(typesOf(ended)).toEqual([
        "test_helpers.test_clock.advancing",
        "customer.subscription.deleted",
        "test_helpers.test_clock.ready",
      ]);
      expect((await stripe.invoices.list({ customer: customer.id })).data).toHaveLength(1);
    });
  });

  describe("the local dashboard and restricted keys", () => {
    it("lists subscriptions and test clocks, and its button advances a clock one month (and an hour) so the next instalment bills", async () => {
      const { clock, customer, subscription } = await clockSubscriber("dashboard", monthly);
      const page = await (await fetch(stack.stripe.dashboardUrl)).text();
      expect(page).toContain("<h2>Subscriptions</h2>");
      expect(page).toContain(subscription.id);
      expect(page).toContain("dashboard@example.com");
      expect(page).toContain("$500.00 per month");
      expect(page).toContain("<h2>Test clocks</h2>");
      expect(page).toContain(`/_local/stripe/clocks/${clock.id}/advance`);
      const pressed = await postForm(`${stack.stripe.dashboardUrl}/clocks/${clock.id}/advance`, {});
      expect(pressed.status).toBe(303);
      await stack.stripe.idle();
      expect(await stripe.testHelpers.testClocks.retrieve(clock.id)).toMatchObject({
        status: "ready",
        frozen_time: months(1) + HOUR,
      });
      const invoices = await stripe.invoices.list({ customer: customer.id });
      expect(invoices.data.map((i) => [i.billing_reason, i.status])).toEqual([
        ["subscription_cycle", "paid"],
        ["subscription_create", "paid"],
      ]);
    });

    it("reaches the new resources only with their permissions, by Stripe's names: subscription, invoice, billing_clock (Customers implies billing_clock_read), customer_portal (docs: Security, Permissions)", async () => {
      const { clock, customer, subscription } = await clockSubscriber("keys", monthly);
      const reader = stripeClient(stack, stack.stripe.restrictedKey({ Subscriptions: "read", Customers: "read" }));
      expect((await reader.subscriptions.retrieve(subscription.id)).id).toBe(subscription.id);
      expect((await reader.testHelpers.testClocks.retrieve(clock.id)).id).toBe(clock.id);
      const write = await reader.subscriptions
        .update(subscription.id, { metadata: { a: "b" } })
        .catch((e: unknown) => e);
      expect(write).toMatchObject({ statusCode: 403, code: "more_permissions_required" });
      expect((write as Error).message).toContain("Enabling Subscriptions Write ('subscription_write')");
      const invoices = await reader.invoices.list({ customer: customer.id }).catch((e: unknown) => e);
      expect((invoices as Error).message).toContain("Enabling Invoices Read ('invoice_read')");
      const advance = await reader.testHelpers.testClocks
        .advance(clock.id, { frozen_time: months(1) })
        .catch((e: unknown) => e);
      expect((advance as Error).message).toContain("Enabling Test clocks Write ('billing_clock_write')");
      const portal = await reader.billingPortal.sessions.create({ customer: customer.id }).catch((e: unknown) => e);
      expect((portal as Error).message).toContain("Enabling Customer portal Write ('customer_portal_write')");
    });
  });

  it("keeps clocks, subscriptions and a pending retry across a restart on the same data folder: the next advance retries when due (store.ts)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stripe-billing-data-"));
    const options = {
      seed: false,
      dataDir,
      functionsDir: fixture.functionsDir,
      config: { functions: { "stripe-webhook": { verifyJwt: false } } },
      stripe: { catalogue: false, retryDelaysMs: [300], timeoutMs: 2_000 },
    };
    let first: TestStack | undefined = await startTestStack({ name: "PGlite" }, options);
    try {
      const api = stripeClient(first);
      const price = await api.prices.create({
        product_data: { name: "Kept" },
        currency: "usd",
        unit_amount: 1_000,
        recurring: { interval: "month" },
      });
      const clock = await api.testHelpers.testClocks.create({ frozen_time: T0 });
      const customer = await api.customers.create({ email: "kept@example.com", test_clock: clock.id });
      const session = await api.checkout.sessions.create({
        mode: "subscription",
        customer: customer.id,
        line_items: [{ price: price.id, quantity: 1 }],
        success_url: `${first.url}/thank-you`,
      });
      expect((await postForm(session.url!, cardFields("4242424242424242"))).status).toBe(303);
      const subscription = (await api.subscriptions.list({ customer: customer.id })).data[0]!;
      const declining = await api.paymentMethods.attach("pm_card_chargeDeclinedAfterAttaching", {
        customer: customer.id,
      });
      await api.subscriptions.update(subscription.id, { default_payment_method: declining.id });
      await api.testHelpers.testClocks.advance(clock.id, { frozen_time: months(1) + HOUR });
      await first.stripe.idle();
      const [open] = (await api.invoices.list({ customer: customer.id, status: "open" })).data;
      expect(open).toMatchObject({ attempt_count: 1, next_payment_attempt: months(1) + HOUR + 3 * DAY });
      await first.stop();
      first = undefined;

      const second = await startTestStack({ name: "PGlite" }, options);
      try {
        const again = stripeClient(second);
        expect(await again.testHelpers.testClocks.retrieve(clock.id)).toMatchObject({
          status: "ready",
          frozen_time: months(1) + HOUR,
        });
        expect(await again.subscriptions.retrieve(subscription.id)).toMatchObject({ status: "past_due" });
        await again.testHelpers.testClocks.advance(clock.id, { frozen_time: open!.next_payment_attempt! });
        await second.stripe.idle();
        expect(await again.invoices.retrieve(open!.id)).toMatchObject({
          attempt_count: 2,
          next_payment_attempt: open!.next_payment_attempt! + 5 * DAY,
        });
      } finally {
        await second.stop();
      }
    } finally {
      await first?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
