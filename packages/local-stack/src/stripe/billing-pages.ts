/**
 * The Stripe stand-in's Billing pages, under `/_local/stripe` (./pages.ts answers the rest):
 * - the hosted invoice page an invoice's `hosted_invoice_url` leads to
 *   (`/_local/stripe/invoices/<id>`): the merchant, the invoice's number, lines and amount due, and
 *   while it is open a card form that pays it, with the checkout page's checks and test cards
 *   (docs: Hosted invoice page: "customers can pay an invoice"; a card paid with here pays this
 *   invoice only, and is not made the subscription's default). A plain HTML form, no script;
 * - the customer portal a portal session's `url` leads to (`/_local/stripe/portal/<id>`), with the
 *   features of the stand-in's portal configuration (./billing-api.ts `PORTAL_CONFIGURATION`):
 *   the customer's subscriptions (price, status, next charge date), a form that replaces the card
 *   ("Payment method update": the new card becomes the customer's default and every
 *   subscription's, and open invoices are paid with it), "Cancel subscription" (the portal's
 *   default mode, at the end of the billing period, which "Don't cancel" undoes) and a link back
 *   to the session's `return_url`.
 * Dev and test only.
 */
import { readBody } from "../http.ts";
import { NO_REQUEST } from "./payments.ts";
import {
  CHECKOUT_STYLE,
  document,
  type Entry,
  type Errors,
  escape,
  type Field,
  html,
  intervalLabel,
  INVOICES_PATH,
  money,
  type PageContext,
  PORTAL_PATH,
  readPayment,
  seeOther,
} from "./pages.ts";
import { StripeError } from "./params.ts";
import type { StripeObject } from "./store.ts";

const day = (seconds: number) =>
  new Date(seconds * 1000).toLocaleDateString("en-US", {
    month: "short",
    day: "numeric",
    year: "numeric",
    timeZone: "UTC",
  });

interface FormState {
  errors?: Errors;
  alert?: string;
  entry?: Entry;
}

/** The card fields of a form (number, expiry, CVC, name), each labelled, with its error. */
function cardFields(state: FormState): string {
  const errors = state.errors ?? {};
  const input = (name: Field, label: string, attributes: string) =>
    `<label for="${name}">${escape(label)}</label><input id="${name}" name="${name}" type="text" ${attributes} value="${escape(state.entry?.values[name] ?? "")}"` +
    (errors[name] ? ` aria-invalid="true" aria-describedby="${name}-error"` : "") +
    `>${errors[name] ? `<p class="error" id="${name}-error">${escape(errors[name]!)}</p>` : ""}`;
  return `<input type="hidden" name="method" value="card">
${input("card_number", "Card number", 'autocomplete="cc-number" inputmode="numeric" placeholder="1234 1234 1234 1234"')}
<div class="row"><div>${input("expiry", "Expiration (MM / YY)", 'autocomplete="cc-exp" inputmode="numeric" placeholder="MM / YY"')}</div><div>${input("cvc", "CVC", 'autocomplete="cc-csc" inputmode="numeric" placeholder="CVC"')}</div></div>
${input("name", "Cardholder name", 'autocomplete="cc-name"')}
<p class="muted">Test mode: 4242 4242 4242 4242 pays; 4000 0000 0000 0341 is saved but declined.</p>`;
}

/** Reads a card form: field errors, a refusal, or the card to save. */
async function readCard(request: Request, email: string) {
  const values = Object.fromEntries(new URLSearchParams(new TextDecoder().decode(await readBody(request, 64 * 1024))));
  const entry: Entry = { method: "card", values };
  const read = readPayment(entry, email);
  const { card_number: _number, cvc: _cvc, ...kept } = values;
  return { read, entry: { method: "card" as const, values: kept } };
}

// ---------------------------------------------------------------- the hosted invoice page

function invoicePage(ctx: PageContext, invoice: StripeObject, state: FormState = {}, status = 200): Response {
  const currency = invoice.currency as string;
  const lines = (invoice.lines as { data: StripeObject[] }).data;
  const paid = invoice.status === "paid";
  const summary = `<section aria-labelledby="merchant"><h1 id="merchant">${escape(ctx.brand)}<span class="badge">Test mode</span></h1>
<p class="muted">Invoice ${escape((invoice.number as string | null) ?? invoice.id)}</p>
<p class="total">${escape(money(invoice.amount_remaining as number, currency))}</p>
<p class="muted">${paid ? `Paid ${escape(day((invoice.status_transitions as { paid_at: number }).paid_at))}` : `Due ${escape(day(invoice.created as number))}`}</p>
<ul>${lines
    .map((line) => {
      const period = line.period as { start: number; end: number };
      return `<li><span>${escape(String(line.description))}<br><span class="muted">${escape(day(period.start))} – ${escape(day(period.end))}</span></span><span>${escape(money(line.amount as number, currency))}</span></li>`;
    })
    .join(
      "",
    )}<li><strong>Amount due</strong><strong>${escape(money(invoice.amount_due as number, currency))}</strong></li></ul></section>`;
  const body =
    invoice.status === "open"
      ? `<form method="post" action="${INVOICES_PATH}/${encodeURIComponent(invoice.id)}" novalidate aria-label="Pay this invoice">
${state.alert ? `<p class="alert" role="alert">${escape(state.alert)}</p>` : ""}
${cardFields(state)}
<button type="submit">Pay ${escape(money(invoice.amount_remaining as number, currency))}</button></form>`
      : `<p class="notice" role="status">${paid ? "This invoice has been paid." : `This invoice is ${escape(String(invoice.status))}: it cannot be paid.`}</p>`;
  return html(
    document(`${ctx.brand}: invoice`, CHECKOUT_STYLE, `<main>${summary}<section>${body}</section></main>`),
    status,
  );
}

/** Pays the open invoice with the card entered; a decline is shown as Stripe's page shows it. */
async function payInvoiceFromForm(ctx: PageContext, invoice: StripeObject, request: Request): Promise<Response> {
  if (invoice.status !== "open") return invoicePage(ctx, invoice, {}, 409);
  const customer = ctx.payments.store.get("customer", invoice.customer as string);
  const { read, entry } = await readCard(request, (customer?.email as string | null) ?? "customer@example.com");
  if (read.errors) return invoicePage(ctx, invoice, { errors: read.errors, entry }, 400);
  if (read.refused) return invoicePage(ctx, invoice, { alert: read.refused, entry }, 402);
  const { refused: _refused, errors: _errors, decline, ...input } = read;
  const billing = ctx.payments.billing;
  // A declining test card declines this charge too: the attempt is recorded on the invoice.
  const card = billing.saveCard(null, { ...input, declinesLater: decline ?? input.declinesLater });
  try {
    billing.payInvoice(invoice.id, card.id, NO_REQUEST);
  } catch (error) {
    if (!(error instanceof StripeError)) throw error;
    return invoicePage(ctx, invoice, { alert: error.message, entry }, 402);
  } finally {
    ctx.payments.store.save();
  }
  return seeOther(`${INVOICES_PATH}/${encodeURIComponent(invoice.id)}`);
}

// ---------------------------------------------------------------- the customer portal

/** The subscriptions the portal shows: those not ended (docs: Customer portal, "view subscriptions"). */
const shownStatuses = new Set(["active", "past_due", "trialing", "unpaid", "incomplete"]);

function portalSubscriptions(ctx: PageContext, customer: string): StripeObject[] {
  return ctx.payments.store
    .all("subscription")
    .map((s) => s.data)
    .filter((s) => s.customer === customer && shownStatuses.has(s.status as string));
}

const cardLabel = (method: StripeObject | undefined) => {
  const card = method?.card as { brand: string; last4: string; exp_month: number; exp_year: number } | undefined;
  if (!card) return "No card on file";
  const brand = card.brand.charAt(0).toUpperCase() + card.brand.slice(1);
  return `${brand} ending in ${card.last4}, expires ${String(card.exp_month).padStart(2, "0")}/${card.exp_year}`;
};

function portalPage(ctx: PageContext, session: StripeObject, state: FormState = {}, status = 200): Response {
  const store = ctx.payments.store;
  const customer = store.get("customer", session.customer as string)!;
  const base = `${PORTAL_PATH}/${encodeURIComponent(session.id)}`;
  const defaultMethod = (customer.invoice_settings as { default_payment_method: string | null }).default_payment_method;
  const subscriptions = portalSubscriptions(ctx, customer.id);
  const card = store.get(
    "payment_method",
    defaultMethod ?? (subscriptions[0]?.default_payment_method as string | null | undefined) ?? "",
  );
  const rows = subscriptions
    .map((sub) => {
      const item = (sub.items as { data: StripeObject[] }).data[0]!;
      const price = item.price as unknown as StripeObject;
      const product = store.get("product", price.product as string);
      const ends = sub.cancel_at as number | null;
      const next = item.current_period_end as number;
      const when = ends
        ? `Cancels on ${day(ends)}`
        : sub.status === "past_due"
          ? "Payment failed: update your payment method to pay it"
          : `Next charge on ${day(next)}`;
      const action = sub.schedule
        ? `<p class="muted">This subscription follows a schedule and cannot be changed here.</p>`
        : sub.cancel_at_period_end
          ? `<form method="post" action="${base}/subscriptions/${encodeURIComponent(sub.id)}/renew" aria-label="Keep ${escape(String(product?.name ?? ""))}"><button type="submit" class="secondary">Don't cancel</button></form>`
          : `<form method="post" action="${base}/subscriptions/${encodeURIComponent(sub.id)}/cancel" aria-label="Cancel ${escape(String(product?.name ?? ""))}"><button type="submit" class="secondary">Cancel subscription</button></form>`;
      return `<li><div><strong>${escape(String(product?.name ?? price.id))}</strong><br>${escape(money(price.unit_amount as number, price.currency as string))} ${escape(intervalLabel(price))}<br><span class="muted">${escape(when)}</span></div>${action}</li>`;
    })
    .join("");
  const back = session.return_url
    ? `<a class="back" href="${escape(session.return_url as string)}">← Return to ${escape(ctx.brand)}</a>`
    : "";
  return html(
    document(
      `${ctx.brand}: billing`,
      CHECKOUT_STYLE,
      `<main><section aria-labelledby="portal">${back}<h1 id="portal">${escape(ctx.brand)}<span class="badge">Test mode</span></h1>
<p class="muted">${escape((customer.email as string | null) ?? "")}</p>
<h2>Current subscriptions</h2>${rows ? `<ul>${rows}</ul>` : "<p>No current subscriptions.</p>"}
<h2>Payment method</h2><p>${escape(cardLabel(card))}</p></section>
<section><form method="post" action="${base}/payment-method" novalidate aria-label="Update payment method">
${state.alert ? `<p class="alert" role="alert">${escape(state.alert)}</p>` : ""}
${cardFields(state)}
<button type="submit">Update payment method</button></form></section></main>`,
    ),
    status,
  );
}

/**
 * The new card becomes the customer's default (`customer.updated`) and every current
 * subscription's (`customer.subscription.updated`), and open invoices are paid with it. A card
 * the issuer declines is refused and changes nothing (the portal checks a card before saving it).
 */
async function replaceCard(ctx: PageContext, session: StripeObject, request: Request): Promise<Response> {
  const store = ctx.payments.store;
  const billing = ctx.payments.billing;
  const customer = store.get("customer", session.customer as string)!;
  const { read, entry } = await readCard(request, (customer.email as string | null) ?? "customer@example.com");
  if (read.errors) return portalPage(ctx, session, { errors: read.errors, entry }, 400);
  if (read.refused) return portalPage(ctx, session, { alert: read.refused, entry }, 402);
  const { refused: _refused, errors: _errors, ...input } = read;
  if (input.decline) return portalPage(ctx, session, { alert: input.decline.message, entry }, 402);
  const card = billing.saveCard(customer.id, input);
  const settings = customer.invoice_settings as Record<string, unknown>;
  const previous = { invoice_settings: structuredClone(settings) };
  settings.default_payment_method = card.id;
  ctx.payments.emit("customer.updated", customer, NO_REQUEST, previous, billing.timeOf(customer.id));
  for (const sub of portalSubscriptions(ctx, customer.id)) {
    billing.updateSubscription(sub.id, { defaultPaymentMethod: card.id }, NO_REQUEST);
  }
  for (const { data: invoice } of store.all("invoice")) {
    if (invoice.customer !== customer.id || invoice.status !== "open" || invoice.auto_advance === false) continue;
    try {
      billing.payInvoice(invoice.id, card.id, NO_REQUEST);
    } catch (error) {
      if (!(error instanceof StripeError)) throw error;
    }
  }
  store.save();
  return seeOther(`${PORTAL_PATH}/${encodeURIComponent(session.id)}`);
}

/** "Cancel subscription" at the end of the period, or "Don't cancel". */
function setCancel(ctx: PageContext, session: StripeObject, subscriptionId: string, cancel: boolean): Response {
  const sub = ctx.payments.store.get("subscription", subscriptionId);
  if (!sub || sub.customer !== session.customer || !shownStatuses.has(sub.status as string)) {
    return portalPage(ctx, session, { alert: "This subscription cannot be changed." }, 404);
  }
  try {
    ctx.payments.billing.updateSubscription(sub.id, { cancelAtPeriodEnd: cancel }, NO_REQUEST);
  } catch (error) {
    if (!(error instanceof StripeError)) throw error;
    return portalPage(ctx, session, { alert: error.message }, 409);
  }
  ctx.payments.store.save();
  return seeOther(`${PORTAL_PATH}/${encodeURIComponent(session.id)}`);
}

/** Answers the Billing pages; null for other paths. */
export async function billingPages(request: Request, pathname: string, ctx: PageContext): Promise<Response | null> {
  const store = ctx.payments.store;
  const invoiceMatch = new RegExp(`^${INVOICES_PATH}/([^/]+)$`).exec(pathname);
  if (invoiceMatch) {
    const invoice = store.get("invoice", decodeURIComponent(invoiceMatch[1]!));
    if (!invoice || invoice.status === "draft") {
      return html(
        document("Not found", CHECKOUT_STYLE, `<main><p class="notice">This invoice does not exist.</p></main>`),
        404,
      );
    }
    if (request.method === "GET") return invoicePage(ctx, invoice);
    if (request.method === "POST") return payInvoiceFromForm(ctx, invoice, request);
    return new Response(null, { status: 405, headers: { allow: "GET, POST" } });
  }
  const portalMatch = new RegExp(
    `^${PORTAL_PATH}/([^/]+)(/payment-method|/subscriptions/([^/]+)/(cancel|renew))?$`,
  ).exec(pathname);
  if (portalMatch) {
    const session = store.get("billing_portal.session", decodeURIComponent(portalMatch[1]!));
    if (!session || !store.get("customer", session.customer as string)) {
      return html(
        document("Not found", CHECKOUT_STYLE, `<main><p class="notice">This portal session does not exist.</p></main>`),
        404,
      );
    }
    if (!portalMatch[2]) {
      return request.method === "GET"
        ? portalPage(ctx, session)
        : new Response(null, { status: 405, headers: { allow: "GET" } });
    }
    if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
    if (portalMatch[2] === "/payment-method") return replaceCard(ctx, session, request);
    return setCancel(ctx, session, decodeURIComponent(portalMatch[3]!), portalMatch[4] === "cancel");
  }
  return null;
}
