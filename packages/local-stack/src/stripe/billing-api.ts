/**
 * The Billing paths of the Stripe stand-in's API (./api.ts answers them with the rest):
 * Subscriptions (retrieve, list, update, cancel), Subscription Schedules (create, from a
 * subscription or for a customer from a start date; retrieve, list, update, cancel, release),
 * Invoices (retrieve, list, pay), PaymentMethods (retrieve), Test Clocks (create, retrieve, list,
 * delete, advance) and customer portal Sessions. Parameters are read as Stripe reads them (the
 * params of stripe-node 23.1's `resources/*.d.ts`); what they do is ./billing.ts. Dev and test only.
 */
import { type Call, expanded, type Handler, list, retrieve, type Route } from "./api.ts";
import * as billingObjects from "./billing-objects.ts";
import type { Interval, PhaseInput } from "./billing.ts";
import * as objects from "./objects.ts";
import { invalid, noSuch, type Param, Reader } from "./params.ts";

const ID = "([^/]+)";

/**
 * The stand-in's customer portal configuration: the Dashboard's defaults once saved (Settings,
 * Billing, Customer portal: customers may update their payment method and cancel, at the end of
 * the billing period), the configuration a session gets when it names none.
 */
export const PORTAL_CONFIGURATION = "bpc_local_default";

// ---------------------------------------------------------------- subscriptions

/** Subscription `status` filter (SubscriptionListParams): a status, `ended`, `all`, or by default all not canceled. */
const SUBSCRIPTION_STATUSES = [
  "active",
  "all",
  "canceled",
  "ended",
  "incomplete",
  "incomplete_expired",
  "past_due",
  "paused",
  "trialing",
  "unpaid",
] as const;

const listSubscriptions: Handler = (call) => {
  const { reader } = call;
  const customer = reader.string("customer");
  const price = reader.string("price");
  const status = reader.oneOf("status", SUBSCRIPTION_STATUSES);
  const clock = reader.string("test_clock");
  // "If no value is supplied, all subscriptions that have not been canceled are returned."
  const keep = (s: string) =>
    status === "all"
      ? true
      : status === "ended"
        ? s === "canceled" || s === "incomplete_expired"
        : status
          ? s === status
          : s !== "canceled";
  return list(
    call,
    "subscription",
    "/v1/subscriptions",
    (s) =>
      keep(s.status as string) &&
      (!customer || s.customer === customer) &&
      (!clock || s.test_clock === clock) &&
      (!price || (s.items as { data: { price: { id: string } }[] }).data.some((i) => i.price.id === price)),
  );
};

const updateSubscription: Handler = ({ reader, ctx, origin, match }) => {
  const found = ctx.store.get("subscription", match[0]!);
  if (!found) throw noSuch("subscription", match[0]!);
  const expandPaths = reader.expand();
  const cancelAtPeriodEnd = reader.boolean("cancel_at_period_end");
  const defaultPaymentMethod = reader.string("default_payment_method", { nullable: true });
  const metadata = reader.metadata("metadata", found.metadata as Record<string, string>);
  reader.done();
  const sub = ctx.payments.billing.updateSubscription(
    found.id,
    { cancelAtPeriodEnd, defaultPaymentMethod, metadata },
    origin,
  );
  return expanded(sub, expandPaths, ctx.store);
};

const cancelSubscription: Handler = ({ reader, ctx, origin, match }) => {
  const expandPaths = reader.expand();
  reader.done();
  return expanded(ctx.payments.billing.cancelSubscription(match[0]!, origin), expandPaths, ctx.store);
};

// ---------------------------------------------------------------- subscription schedules

/** A unix time or `now` (a schedule's or a phase's date). */
function timeOrNow(reader: Reader, name: string): number | "now" | undefined {
  if (reader.params[name] === "now") {
    reader.string(name);
    return "now";
  }
  return reader.integer(name);
}

/** `phases[...]`: each phase's items, its length (`end_date` or `duration`) and its card. */
function readPhases(reader: Reader, update: boolean): PhaseInput[] | undefined {
  const phases = reader.list("phases");
  if (!phases) return undefined;
  if (phases.length === 0) throw invalid("Missing required param: phases.", "phases", "parameter_missing");
  return phases.map((raw: Param, i) => {
    const path = `phases[${i}]`;
    if (typeof raw !== "object" || Array.isArray(raw)) throw invalid("Invalid object", path);
    const phase = new Reader(raw, path);
    const items = phase.list("items");
    if (!items || items.length === 0) {
      throw invalid(`Missing required param: ${path}[items].`, `${path}[items]`, "parameter_missing");
    }
    const parsed = items.map((item, j) => {
      const itemPath = `${path}[items][${j}]`;
      if (typeof item !== "object" || Array.isArray(item)) throw invalid("Invalid object", itemPath);
      const itemReader = new Reader(item, itemPath);
      const price = itemReader.string("price", { required: true })!;
      const quantity = itemReader.integer("quantity", { min: 0 }) ?? 1;
      itemReader.done();
      return { price, quantity };
    });
    const startDate = update ? timeOrNow(phase, "start_date") : undefined;
    const endDate = timeOrNow(phase, "end_date");
    const durationReader = phase.object("duration");
    let duration: PhaseInput["duration"];
    if (durationReader) {
      const interval = durationReader.oneOf("interval", ["day", "month", "week", "year"], { required: true })!;
      const intervalCount = durationReader.integer("interval_count", { min: 1 }) ?? 1;
      durationReader.done();
      duration = { interval: interval as Interval, intervalCount };
    }
    const defaultPaymentMethod = phase.string("default_payment_method") ?? undefined;
    const metadata = phase.metadata();
    phase.done();
    return { items: parsed, startDate, endDate, duration, defaultPaymentMethod, metadata };
  });
}

/** `end_behavior`: the stand-in runs `cancel` and `release`, the two Stripe documents for new schedules. */
function readEndBehavior(reader: Reader): string | undefined {
  const behavior = reader.oneOf("end_behavior", ["cancel", "none", "release", "renew"]);
  if (behavior === "none" || behavior === "renew") {
    throw invalid("The local Stripe stand-in runs only end_behavior=cancel and end_behavior=release.", "end_behavior");
  }
  return behavior;
}

/** `default_settings[default_payment_method]`, the one default setting the stand-in takes. */
function readDefaultPaymentMethod(reader: Reader): string | undefined {
  const settings = reader.object("default_settings");
  const method = settings?.string("default_payment_method") ?? undefined;
  settings?.done();
  return method;
}

const createSchedule: Handler = ({ reader, ctx, origin }) => {
  const expandPaths = reader.expand();
  const fromSubscription = reader.string("from_subscription");
  const customer = reader.string("customer");
  const startDate = timeOrNow(reader, "start_date");
  const endBehavior = readEndBehavior(reader);
  const phases = readPhases(reader, false);
  const defaultPaymentMethod = readDefaultPaymentMethod(reader);
  const metadata = reader.metadata();
  reader.done();
  const billing = ctx.payments.billing;
  if (fromSubscription !== undefined) {
    // `from_subscription`: "When using this parameter, other parameters (such as phase values)
    // cannot be set" (SubscriptionScheduleCreateParams). The message is the stand-in's; it names
    // the first one set. `metadata` is let through (the stand-in's reading of "such as").
    const also = [
      ["customer", customer],
      ["start_date", startDate],
      ["end_behavior", endBehavior],
      ["phases", phases],
      ["default_settings", defaultPaymentMethod],
    ].find(([, value]) => value !== undefined);
    if (also) {
      throw invalid(`You cannot set \`${String(also[0])}\` if \`from_subscription\` is set.`, String(also[0]));
    }
    return expanded(billing.scheduleFromSubscription(fromSubscription!, metadata, origin), expandPaths, ctx.store);
  }
  if (customer === undefined) throw invalid("Missing required param: customer.", "customer", "parameter_missing");
  if (!phases) throw invalid("Missing required param: phases.", "phases", "parameter_missing");
  const made = billing.createSchedule(
    {
      customer: customer!,
      startDate: startDate ?? "now",
      endBehavior: endBehavior ?? "release",
      phases,
      defaultPaymentMethod: defaultPaymentMethod ?? null,
      metadata: metadata ?? {},
    },
    origin,
  );
  return expanded(made, expandPaths, ctx.store);
};

const updateSchedule: Handler = ({ reader, ctx, origin, match }) => {
  const found = ctx.store.get("subscription_schedule", match[0]!);
  if (!found) throw noSuch("subscription_schedule", match[0]!);
  const expandPaths = reader.expand();
  const endBehavior = readEndBehavior(reader);
  const phases = readPhases(reader, true);
  const defaultPaymentMethod = readDefaultPaymentMethod(reader);
  const metadata = reader.metadata("metadata", (found.metadata as Record<string, string> | null) ?? {});
  reader.oneOf("proration_behavior", ["always_invoice", "create_prorations", "none"]);
  reader.done();
  const schedule = ctx.payments.billing.updateSchedule(
    found.id,
    { endBehavior, phases, defaultPaymentMethod, metadata },
    origin,
  );
  return expanded(schedule, expandPaths, ctx.store);
};

const listSchedules: Handler = (call) => {
  const customer = call.reader.string("customer");
  const scheduled = call.reader.boolean("scheduled");
  return list(
    call,
    "subscription_schedule",
    "/v1/subscription_schedules",
    (s) =>
      (!customer || s.customer === customer) && (scheduled === undefined || (s.status === "not_started") === scheduled),
  );
};

const scheduleAction =
  (action: "cancelSchedule" | "releaseSchedule"): Handler =>
  ({ reader, ctx, origin, match }) => {
    const expandPaths = reader.expand();
    if (action === "cancelSchedule") {
      reader.boolean("invoice_now");
      reader.boolean("prorate");
    } else {
      reader.boolean("preserve_cancel_date");
    }
    reader.done();
    return expanded(ctx.payments.billing[action](match[0]!, origin), expandPaths, ctx.store);
  };

// ---------------------------------------------------------------- invoices

const listInvoices: Handler = (call) => {
  const { reader } = call;
  const customer = reader.string("customer");
  const subscription = reader.string("subscription");
  const status = reader.oneOf("status", ["draft", "open", "paid", "uncollectible", "void"]);
  const collection = reader.oneOf("collection_method", ["charge_automatically", "send_invoice"]);
  return list(
    call,
    "invoice",
    "/v1/invoices",
    (i) =>
      (!customer || i.customer === customer) &&
      (!status || i.status === status) &&
      (!collection || i.collection_method === collection) &&
      (!subscription ||
        (i.parent as { subscription_details: { subscription: string } | null } | null)?.subscription_details
          ?.subscription === subscription),
  );
};

const payInvoice: Handler = ({ reader, ctx, origin, match }) => {
  if (!ctx.store.get("invoice", match[0]!)) throw noSuch("invoice", match[0]!);
  const expandPaths = reader.expand();
  const paymentMethod = reader.string("payment_method") ?? undefined;
  reader.boolean("off_session");
  reader.done();
  return expanded(ctx.payments.billing.payInvoice(match[0]!, paymentMethod, origin), expandPaths, ctx.store);
};

const attachPaymentMethod: Handler = ({ reader, ctx, origin, match }) => {
  const expandPaths = reader.expand();
  const customer = reader.string("customer", { required: true })!;
  reader.done();
  return expanded(ctx.payments.billing.attach(match[0]!, customer, origin), expandPaths, ctx.store);
};

// ---------------------------------------------------------------- test clocks

const createClock: Handler = ({ reader, ctx, origin }) => {
  const expandPaths = reader.expand();
  const frozenTime = reader.integer("frozen_time", { required: true })!;
  const name = reader.string("name", { max: 300 }) ?? null;
  reader.done();
  return expanded(ctx.payments.billing.createClock(frozenTime, name, origin), expandPaths, ctx.store);
};

const advanceClock: Handler = ({ reader, ctx, origin, match }) => {
  const expandPaths = reader.expand();
  const frozenTime = reader.integer("frozen_time", { required: true })!;
  reader.done();
  return expanded(ctx.payments.billing.advanceClock(match[0]!, frozenTime, origin), expandPaths, ctx.store);
};

const deleteClock: Handler = ({ reader, ctx, origin, match }) => {
  reader.done();
  return ctx.payments.billing.deleteClock(match[0]!, origin);
};

// ---------------------------------------------------------------- customer portal

/** Stripe accepts http(s) URLs for `return_url`. */
function checkReturnUrl(value: string): string {
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("scheme");
  } catch {
    throw invalid("Not a valid URL", "return_url", "url_invalid");
  }
  return value;
}

const createPortalSession: Handler = ({ reader, ctx, origin }) => {
  const expandPaths = reader.expand();
  const customerId = reader.string("customer", { required: true })!;
  const returnRaw = reader.string("return_url");
  const configuration = reader.string("configuration") ?? PORTAL_CONFIGURATION;
  reader.done();
  const customer = ctx.store.get("customer", customerId);
  if (!customer) throw noSuch("customer", customerId, "customer");
  if (configuration !== PORTAL_CONFIGURATION)
    throw noSuch("billing_portal.configuration", configuration, "configuration");
  const made = billingObjects.portalSession({
    customer: customer.id,
    returnUrl: returnRaw ? checkReturnUrl(returnRaw) : null,
    created: objects.now(),
    configuration,
    url: (id) => `${ctx.url}${ctx.portalPath}/${id}`,
  });
  ctx.store.put("billing_portal.session", made);
  ctx.payments.emit("billing_portal.session.created", made, origin);
  return expanded(made, expandPaths, ctx.store);
};

const get = (collection: Parameters<typeof retrieve>[1], objectName?: string) => (c: Call) =>
  retrieve(c, collection, objectName);

export const BILLING_ROUTES: Route[] = [
  { method: "GET", pattern: /^\/v1\/subscriptions$/, handle: listSubscriptions, object: "subscription", list: true },
  {
    method: "GET",
    pattern: new RegExp(`^/v1/subscriptions/${ID}$`),
    handle: get("subscription"),
    object: "subscription",
  },
  {
    method: "POST",
    pattern: new RegExp(`^/v1/subscriptions/${ID}$`),
    handle: updateSubscription,
    object: "subscription",
  },
  {
    method: "DELETE",
    pattern: new RegExp(`^/v1/subscriptions/${ID}$`),
    handle: cancelSubscription,
    object: "subscription",
  },
  {
    method: "POST",
    pattern: /^\/v1\/subscription_schedules$/,
    handle: createSchedule,
    object: "subscription_schedule",
  },
  {
    method: "GET",
    pattern: /^\/v1\/subscription_schedules$/,
    handle: listSchedules,
    object: "subscription_schedule",
    list: true,
  },
  {
    method: "GET",
    pattern: new RegExp(`^/v1/subscription_schedules/${ID}$`),
    handle: get("subscription_schedule"),
    object: "subscription_schedule",
  },
  {
    method: "POST",
    pattern: new RegExp(`^/v1/subscription_schedules/${ID}$`),
    handle: updateSchedule,
    object: "subscription_schedule",
  },
  {
    method: "POST",
    pattern: new RegExp(`^/v1/subscription_schedules/${ID}/cancel$`),
    handle: scheduleAction("cancelSchedule"),
    object: "subscription_schedule",
  },
  {
    method: "POST",
    pattern: new RegExp(`^/v1/subscription_schedules/${ID}/release$`),
    handle: scheduleAction("releaseSchedule"),
    object: "subscription_schedule",
  },
  { method: "GET", pattern: /^\/v1\/invoices$/, handle: listInvoices, object: "invoice", list: true },
  { method: "GET", pattern: new RegExp(`^/v1/invoices/${ID}$`), handle: get("invoice"), object: "invoice" },
  { method: "POST", pattern: new RegExp(`^/v1/invoices/${ID}/pay$`), handle: payInvoice, object: "invoice" },
  {
    method: "GET",
    pattern: new RegExp(`^/v1/payment_methods/${ID}$`),
    handle: get("payment_method"),
    object: "payment_method",
  },
  {
    method: "POST",
    pattern: new RegExp(`^/v1/payment_methods/${ID}/attach$`),
    handle: attachPaymentMethod,
    object: "payment_method",
  },
  {
    method: "POST",
    pattern: /^\/v1\/test_helpers\/test_clocks$/,
    handle: createClock,
    object: "test_helpers.test_clock",
  },
  {
    method: "GET",
    pattern: /^\/v1\/test_helpers\/test_clocks$/,
    handle: (c) => list(c, "test_helpers.test_clock", "/v1/test_helpers/test_clocks", () => true),
    object: "test_helpers.test_clock",
    list: true,
  },
  {
    method: "GET",
    pattern: new RegExp(`^/v1/test_helpers/test_clocks/${ID}$`),
    handle: get("test_helpers.test_clock"),
    object: "test_helpers.test_clock",
  },
  {
    method: "DELETE",
    pattern: new RegExp(`^/v1/test_helpers/test_clocks/${ID}$`),
    handle: deleteClock,
    object: "test_helpers.test_clock",
  },
  {
    method: "POST",
    pattern: new RegExp(`^/v1/test_helpers/test_clocks/${ID}/advance$`),
    handle: advanceClock,
    object: "test_helpers.test_clock",
  },
  {
    method: "POST",
    pattern: /^\/v1\/billing_portal\/sessions$/,
    handle: createPortalSession,
    object: "billing_portal.session",
  },
];
