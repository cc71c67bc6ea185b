/**
 * The Stripe stand-in's pages, under `/_local/stripe` (answered to this machine only):
 * - the hosted checkout page a session's `url` leads to (`/_local/stripe/checkout/<id>`): the
 *   merchant, the line items and total, the e-mail, and a choice of card or US bank account. A
 *   plain HTML form, no script: it checks what Stripe's own page checks, with Stripe's messages
 *   (test card numbers, expiry in the future, CVC), charges through the same steps as Stripe
 *   (packages/local-stack/src/stripe/payments.ts) and redirects (303) to `success_url` with
 *   `{CHECKOUT_SESSION_ID}` filled in; "← Back" leads to `cancel_url`;
 * - the 3-D Secure step a test card that asks for authentication leads to
 *   (`/_local/stripe/checkout/<id>/authenticate`), with the two answers Stripe's test page offers,
 *   "Complete authentication" and "Fail authentication"; a failure returns the buyer to the
 *   checkout page with Checkout's message;
 * - the dashboard (`/_local/stripe`): sessions newest first with their events' deliveries and
 *   their payment's disputes, the buttons that settle, fail, refund or expire, the subscriptions
 *   and test clocks (a button advances a clock one month, ./billing.ts), the delivery log,
 *   the keys (restricted ones with their permissions) and the endpoint;
 *   `/_local/stripe/deliveries.json` is the log for scripts;
 * - a charge's receipt, its `receipt_url` (`/_local/stripe/receipts/<charge>`, ./receipts.ts).
 * Dev and test only.
 */
import { readBody } from "../http.ts";
import { billingPages } from "./billing-pages.ts";
import { addInterval } from "./billing.ts";
import type { DisputeKind } from "./objects.ts";
import { type Decline, NO_REQUEST, type PayInput, type PayResult, type Payments, closedMessage } from "./payments.ts";
import type { RestrictedKey } from "./permissions.ts";
import type { Delivery, StripeObject } from "./store.ts";

export const STRIPE_PAGES_PATH = "/_local/stripe";
export const CHECKOUT_PATH = `${STRIPE_PAGES_PATH}/checkout`;
/** The customer portal's sessions (./billing-pages.ts). */
export const PORTAL_PATH = `${STRIPE_PAGES_PATH}/portal`;
/** Hosted invoice pages (an invoice's `hosted_invoice_url`, ./billing-pages.ts). */
export const INVOICES_PATH = `${STRIPE_PAGES_PATH}/invoices`;
/** Where a payment that asks for 3-D Secure is authenticated. */
export const authenticationPath = (sessionId: string) =>
  `${CHECKOUT_PATH}/${encodeURIComponent(sessionId)}/authenticate`;

export interface PageContext {
  payments: Payments;
  brand: string;
  url: string;
  secretKey: string;
  webhookSecret: string;
  restrictedKeys(): RestrictedKey[];
  webhookUrl: string;
  resend(eventId: string): void;
  /** The receipt page of `/_local/stripe/receipts/<charge>`; null for other paths. */
  receipt(pathname: string): Response | null;
}

export const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export const html = (body: string, status = 200) =>
  new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });

export const money = (cents: number, currency: string) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(cents / 100);

export const document = (title: string, style: string, body: string) => `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escape(title)}</title>
<style>${style}</style></head><body>${body}</body></html>`;

// ---------------------------------------------------------------- cards (what Stripe's page checks)

interface TestCard {
  brand: string;
  funding: string;
  /** Declined (after authentication, for a card that asks for it). */
  decline?: Decline;
  /** Asks for 3-D Secure before it is charged. */
  authenticate?: boolean;
  /** Its refunds fail some time after they are made. */
  refundsFail?: boolean;
  /** Its charge succeeds, then is disputed. */
  dispute?: DisputeKind;
  /** Its charge succeeds, then receives an early fraud warning. */
  earlyFraudWarning?: boolean;
  /** It attaches to a customer, but every charge of it is declined. */
  declinesLater?: Decline;
}

const declined = (code: string, declineCode: string | null, message: string): Decline => ({
  code,
  declineCode,
  message,
});

/**
 * Stripe's test card numbers (docs.stripe.com/testing): the ones that pay, the ones declined, the
 * 3-D Secure ones ("3D Secure authentication": 3155 "requires authentication for one-time
 * payments", 3184 "requires authentication on all transactions", 3178 is "declined with an
 * insufficient_funds failure code even after being successfully authenticated"), the one
 * whose refunds fail ("Refunds": 5126, "Asynchronous failure"), and the disputes ("With default
 * account settings, charge succeeds, only to be disputed as fraudulent": 0259, "as product not
 * received": 2685, "as an inquiry": 1976; "only to receive an early fraud warning": 5423), and
 * the one that saves but never pays ("Decline after attaching": 0341, "Attaching this card to a
 * Customer object succeeds, but attempts to charge the customer fail").
 */
const TEST_CARDS: Record<string, TestCard> = {
  "4242424242424242": { brand: "visa", funding: "credit" },
  "4000056655665556": { brand: "visa", funding: "debit" },
  "5555555555554444": { brand: "mastercard", funding: "credit" },
  "2223003122003222": { brand: "mastercard", funding: "credit" },
  "5200828282828210": { brand: "mastercard", funding: "debit" },
  "378282246310005": { brand: "amex", funding: "credit" },
  "371449635398431": { brand: "amex", funding: "credit" },
  "6011111111111117": { brand: "discover", funding: "credit" },
  "4000000000000002": {
    brand: "visa",
    funding: "credit",
    decline: declined("card_declined", "generic_decline", "Your card was declined."),
  },
  "4000000000009995": {
    brand: "visa",
    funding: "credit",
    decline: declined("card_declined", "insufficient_funds", "Your card has insufficient funds."),
  },
  "4000000000009987": {
    brand: "visa",
    funding: "credit",
    decline: declined("card_declined", "lost_card", "Your card was declined."),
  },
  "4000000000009979": {
    brand: "visa",
    funding: "credit",
    decline: declined("card_declined", "stolen_card", "Your card was declined."),
  },
  "4000000000000069": {
    brand: "visa",
    funding: "credit",
    decline: declined("expired_card", "expired_card", "Your card has expired."),
  },
  "4000000000000127": {
    brand: "visa",
    funding: "credit",
    decline: declined("incorrect_cvc", "incorrect_cvc", "Your card's security code is incorrect."),
  },
  "4000000000000119": {
    brand: "visa",
    funding: "credit",
    decline: declined(
      "processing_error",
      "processing_error",
      "An error occurred while processing your card. Try again in a little bit.",
    ),
  },
  "4000002500003155": { brand: "visa", funding: "credit", authenticate: true },
  "4000002760003184": { brand: "visa", funding: "credit", authenticate: true },
  "4000008260003178": {
    brand: "visa",
    funding: "credit",
    authenticate: true,
    decline: declined("card_declined", "insufficient_funds", "Your card has insufficient funds."),
  },
  "4000000000005126": { brand: "visa", funding: "credit", refundsFail: true },
  "4000000000000259": { brand: "visa", funding: "credit", dispute: "fraudulent" },
  "4000000000002685": { brand: "visa", funding: "credit", dispute: "product_not_received" },
  "4000000000001976": { brand: "visa", funding: "credit", dispute: "inquiry" },
  "4000000000005423": { brand: "visa", funding: "credit", earlyFraudWarning: true },
  "4000000000000341": {
    brand: "visa",
    funding: "credit",
    declinesLater: declined("card_declined", "generic_decline", "Your card was declined."),
  },
};

/** A live card number in test mode: Stripe refuses it before any charge. */
const LIVE_CARD_IN_TEST_MODE =
  "Your card was declined. Your request was in test mode, but used a non test (live) card. For a list of valid test cards, visit: https://stripe.com/docs/testing.";

const luhn = (digits: string) => {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
};

/** The ABA routing number checksum (3-7-1 weights). */
const abaValid = (digits: string) =>
  /^\d{9}$/.test(digits) && [...digits].reduce((sum, d, i) => sum + Number(d) * [3, 7, 1][i % 3]!, 0) % 10 === 0;

export type Field =
  "email" | "card_number" | "expiry" | "cvc" | "name" | "account_holder" | "routing_number" | "account_number";
export type Errors = Partial<Record<Field, string>>;

export interface Entry {
  method: "card" | "us_bank_account";
  values: Record<string, string>;
}

/** Reads and checks the form as Stripe's page does: field errors, or the payment to make. */
export function readPayment(
  entry: Entry,
  fixedEmail: string | null,
): { errors: Errors } | (PayInput & { errors?: undefined; name: string; refused?: string }) {
  const v = entry.values;
  const errors: Errors = {};
  const email = (fixedEmail ?? v.email ?? "").trim();
  if (!email) errors.email = "Required";
  else if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) errors.email = "Your email address is invalid.";

  if (entry.method === "us_bank_account") {
    const holder = (v.account_holder ?? "").trim();
    const routing = (v.routing_number ?? "").replace(/\s/g, "");
    const account = (v.account_number ?? "").replace(/\s/g, "");
    if (!holder) errors.account_holder = "Required";
    if (!abaValid(routing)) errors.routing_number = "Your routing number is invalid.";
    if (!/^\d{4,17}$/.test(account)) errors.account_number = "Your account number is invalid.";
    if (Object.keys(errors).length > 0) return { errors };
    return {
      email,
      name: holder,
      method: { type: "us_bank_account", bank: { routingNumber: routing, last4: account.slice(-4) } },
    };
  }

  const number = (v.card_number ?? "").replace(/[\s-]/g, "");
  const amex = /^3[47]/.test(number);
  const length = amex ? 15 : 16;
  if (!/^\d*$/.test(number)) errors.card_number = "Your card number is invalid.";
  else if (number.length < length) errors.card_number = "Your card number is incomplete.";
  else if (number.length > 19 || !luhn(number)) errors.card_number = "Your card number is invalid.";

  const expiry = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(v.expiry ?? "");
  let expMonth = 0;
  let expYear = 0;
  if (!expiry) errors.expiry = "Your card's expiration date is incomplete.";
  else {
    expMonth = Number(expiry[1]);
    expYear = Number(expiry[2]!.length === 2 ? `20${expiry[2]}` : expiry[2]);
    const today = new Date();
    const year = today.getFullYear();
    if (expMonth < 1 || expMonth > 12) errors.expiry = "Your card's expiration month is invalid.";
    else if (expYear < year) errors.expiry = "Your card's expiration year is in the past.";
    else if (expYear === year && expMonth < today.getMonth() + 1)
      errors.expiry = "Your card's expiration date is in the past.";
    else if (expYear > year + 50) errors.expiry = "Your card's expiration year is invalid.";
  }

  const cvc = (v.cvc ?? "").trim();
  if (!new RegExp(`^\\d{${amex ? 4 : 3}}$`).test(cvc)) errors.cvc = "Your card's security code is incomplete.";
  const name = (v.name ?? "").trim();
  if (!name) errors.name = "Required";
  if (Object.keys(errors).length > 0) return { errors };

  const known = TEST_CARDS[number];
  const card = {
    brand: known?.brand ?? (number.startsWith("4") ? "visa" : "unknown"),
    last4: number.slice(-4),
    expMonth,
    expYear,
    funding: known?.funding ?? "credit",
  };
  return {
    email,
    name,
    method: { type: "card", card },
    ...(known?.decline ? { decline: known.decline } : {}),
    ...(known?.authenticate ? { authenticate: true } : {}),
    ...(known?.refundsFail ? { refundsFail: true } : {}),
    ...(known?.dispute ? { dispute: known.dispute } : {}),
    ...(known?.earlyFraudWarning ? { earlyFraudWarning: true } : {}),
    ...(known?.declinesLater ? { declinesLater: known.declinesLater } : {}),
    ...(known ? {} : { refused: LIVE_CARD_IN_TEST_MODE }),
  };
}

// ---------------------------------------------------------------- the hosted checkout page

export const CHECKOUT_STYLE = `*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1a1f36;background:#f6f9fc}
main{max-width:60rem;margin:0 auto;padding:2rem 1rem;display:grid;gap:2rem}
@media(min-width:48rem){main{grid-template-columns:1fr 1fr}}
a{color:#4f46e5}.back{display:inline-block;margin-bottom:1rem;text-decoration:none}
.badge{display:inline-block;margin-left:.5rem;padding:0 .4rem;border-radius:.25rem;background:#ffde92;color:#5d3a00;font-size:.75rem;font-weight:600;vertical-align:middle}
h1{font-size:1.1rem;margin:0}.total{font-size:2rem;font-weight:700;margin:.5rem 0 1rem}
ul{list-style:none;padding:0;margin:0}li{display:flex;justify-content:space-between;gap:1rem;padding:.5rem 0;border-bottom:1px solid #e3e8ee}
.muted{color:#4f566b;font-size:.875rem}
form{background:#fff;padding:1.5rem;border-radius:.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
label{display:block;font-size:.875rem;font-weight:500;margin-top:1rem}
input[type=text],input[type=email]{display:block;width:100%;margin-top:.25rem;padding:.6rem .75rem;font:inherit;border:1px solid #c0c8d2;border-radius:.375rem}
input[aria-invalid=true]{border-color:#df1b41}.error{color:#df1b41;font-size:.875rem;margin:.25rem 0 0}
fieldset{border:0;padding:0;margin:1rem 0 0}legend{font-size:.875rem;font-weight:500}
.methods{display:flex;gap:1rem}.methods label{display:flex;gap:.5rem;align-items:center;margin-top:.5rem;font-weight:400}
.row{display:grid;grid-template-columns:1fr 1fr;gap:1rem}
form:has(#method-card:checked) .bank,form:has(#method-bank:checked) .card{display:none}
.alert{background:#fff1f0;border:1px solid #df1b41;color:#8f0b2a;padding:.75rem;border-radius:.375rem;margin:0 0 1rem}
.notice{background:#eef6ff;border:1px solid #94b8e5;padding:.75rem;border-radius:.375rem}
button{margin-top:1.5rem;width:100%;padding:.75rem;font:inherit;font-weight:600;color:#fff;background:#4f46e5;border:0;border-radius:.375rem;cursor:pointer}
button.secondary{margin-top:.75rem;color:#1a1f36;background:#fff;border:1px solid #4f566b}
button:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid #0a2540;outline-offset:2px}`;

interface PageState {
  errors?: Errors;
  alert?: string;
  entry?: Entry;
}

function checkoutPage(ctx: PageContext, session: StripeObject, state: PageState = {}, status = 200): Response {
  const store = ctx.payments.store;
  const items = store.state.checkout[session.id]?.lineItems ?? [];
  const currency = session.currency as string;
  const total = money(session.amount_total as number, currency);
  const customer = session.customer ? store.get("customer", session.customer as string) : undefined;
  const fixedEmail =
    (session.customer_email as string | null) ?? (customer?.email as string | null | undefined) ?? null;
  const methods = session.payment_method_types as string[];
  const chosen = state.entry?.method ?? (methods.includes("card") ? "card" : "us_bank_account");
  const value = (name: string, fallback = "") => escape(state.entry?.values[name] ?? fallback);
  const errors = state.errors ?? {};
  const input = (name: Field, label: string, attributes: string, fallback = "") =>
    `<label for="${name}">${escape(label)}</label><input id="${name}" name="${name}" type="${name === "email" ? "email" : "text"}" ${attributes} value="${value(name, fallback)}"` +
    (errors[name] ? ` aria-invalid="true" aria-describedby="${name}-error"` : "") +
    `>${errors[name] ? `<p class="error" id="${name}-error">${escape(errors[name]!)}</p>` : ""}`;

  const back = session.cancel_url ? `<a class="back" href="${escape(session.cancel_url as string)}">← Back</a>` : "";
  const subscribing = session.mode === "subscription";
  const every = subscribing ? intervalLabel(items[0]?.price as StripeObject | undefined) : "";
  const summary = `<section aria-labelledby="merchant">${back}
<h1 id="merchant">${escape(ctx.brand)}<span class="badge">Test mode</span></h1>
<p class="muted">${subscribing ? `Subscribe to ${escape(ctx.brand)}` : `Pay ${escape(ctx.brand)}`}</p><p class="total">${escape(total)}${every ? ` <span class="muted">${escape(every)}</span>` : ""}</p>
<ul>${items
    .map((item) => {
      const quantity = item.quantity as number;
      return `<li><span>${escape(item.description as string)}${quantity > 1 ? ` <span class="muted">× ${quantity}</span>` : ""}</span><span>${escape(money(item.amount_total as number, currency))}</span></li>`;
    })
    .join("")}<li><strong>Total due</strong><strong>${escape(total)}</strong></li></ul></section>`;

  if (session.status !== "open") {
    return html(
      document(
        `${ctx.brand}: checkout`,
        CHECKOUT_STYLE,
        `<main>${summary}<section><p class="notice" role="status">${escape(closedMessage(session))}</p></section></main>`,
      ),
      status,
    );
  }

  const submitMessage = (session.custom_text as { submit: { message: string } | null }).submit?.message;
  const emailField = fixedEmail
    ? `<label for="email">Email</label><input id="email" name="email" type="email" value="${escape(fixedEmail)}" readonly>`
    : input("email", "Email", 'autocomplete="email" inputmode="email"');
  const radio = (type: string, id: string, label: string) =>
    methods.includes(type)
      ? `<label><input type="radio" name="method" id="${id}" value="${type}"${chosen === type ? " checked" : ""}> ${label}</label>`
      : "";
  // Posted to the checkout's own address, not the page's: after a failed 3-D Secure the page is
  // the answer to the authentication step's POST, and the next card must reach the checkout.
  const form = `<form method="post" action="${CHECKOUT_PATH}/${encodeURIComponent(session.id)}" novalidate aria-label="Payment">
${state.alert ? `<p class="alert" role="alert">${escape(state.alert)}</p>` : ""}
${emailField}
<fieldset><legend>Payment method</legend><div class="methods">${radio("card", "method-card", "Card")}${radio("us_bank_account", "method-bank", "US bank account")}</div></fieldset>
${
  methods.includes("card")
    ? `<div class="card">${input("card_number", "Card number", 'autocomplete="cc-number" inputmode="numeric" placeholder="1234 1234 1234 1234"')}
<div class="row"><div>${input("expiry", "Expiration (MM / YY)", 'autocomplete="cc-exp" inputmode="numeric" placeholder="MM / YY"')}</div><div>${input("cvc", "CVC", 'autocomplete="cc-csc" inputmode="numeric" placeholder="CVC"')}</div></div>
${input("name", "Cardholder name", 'autocomplete="cc-name"')}
<p class="muted">Test mode: pay with 4242 4242 4242 4242, any future date and any CVC; 4000 0000 0000 0002 is declined; 4000 0025 0000 3155 asks for authentication.</p></div>`
    : ""
}
${
  methods.includes("us_bank_account")
    ? `<div class="bank">${input("account_holder", "Account holder name", 'autocomplete="name"')}
${input("routing_number", "Routing number", 'inputmode="numeric"', "110000000")}
${input("account_number", "Account number", 'inputmode="numeric"', "000123456789")}
<p class="muted">A bank debit takes a few days: the order stays pending until it settles (the local Stripe dashboard settles or fails it).</p></div>`
    : ""
}
${submitMessage ? `<p class="muted" id="submit-message">${escape(submitMessage)}</p>` : ""}
<button type="submit"${submitMessage ? ' aria-describedby="submit-message"' : ""}>${subscribing ? "Subscribe" : "Pay"}</button></form>`;
  return html(
    document(`${ctx.brand}: checkout`, CHECKOUT_STYLE, `<main>${summary}<section>${form}</section></main>`),
    status,
  );
}

/** "per month", "every 3 months": a recurring price's interval as Checkout shows it. */
export function intervalLabel(price: StripeObject | undefined): string {
  const recurring = price?.recurring as { interval: string; interval_count: number } | null | undefined;
  if (!recurring) return "";
  return recurring.interval_count === 1
    ? `per ${recurring.interval}`
    : `every ${recurring.interval_count} ${recurring.interval}s`;
}

async function payFromForm(ctx: PageContext, session: StripeObject, request: Request): Promise<Response> {
  const form = new URLSearchParams(new TextDecoder().decode(await readBody(request, 64 * 1024)));
  const values = Object.fromEntries(form);
  const methods = session.payment_method_types as string[];
  const method =
    values.method === "us_bank_account" && methods.includes("us_bank_account") ? "us_bank_account" : "card";
  const entry: Entry = { method, values };
  if (session.status !== "open") return checkoutPage(ctx, session, {}, 409);
  const store = ctx.payments.store;
  const customer = session.customer ? store.get("customer", session.customer as string) : undefined;
  const fixedEmail =
    (session.customer_email as string | null) ?? (customer?.email as string | null | undefined) ?? null;
  const read = readPayment(entry, fixedEmail);
  // What Stripe's page refuses itself (incomplete fields, a live card): nothing is charged.
  if (read.errors) return checkoutPage(ctx, session, { errors: read.errors, entry }, 400);
  if (read.refused) return checkoutPage(ctx, session, { alert: read.refused, entry }, 402);
  const { refused: _refused, errors: _errors, ...input } = read;
  const { card_number: _number, cvc: _cvc, ...kept } = values;
  return afterAttempt(ctx, session, ctx.payments.pay(session.id, input), { method, values: kept });
}

export const seeOther = (location: string) =>
  new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });

/** Where an attempt leads: `success_url`, the 3-D Secure step, or the checkout page with the refusal. */
function afterAttempt(ctx: PageContext, session: StripeObject, result: PayResult, entry: Entry): Response {
  if (result.status === "authenticate") return seeOther(authenticationPath(session.id));
  if (result.status === "declined") return checkoutPage(ctx, session, { alert: result.message, entry }, 402);
  return seeOther((session.success_url as string).replaceAll("{CHECKOUT_SESSION_ID}", session.id));
}

/**
 * The issuer's 3-D Secure challenge, as Stripe's test page shows it in test mode: the payment,
 * and the two answers a test card takes. A plain form: each answer is a button of its own.
 */
function authenticationPage(ctx: PageContext, session: StripeObject, waiting: PayInput): Response {
  const card = waiting.method.type === "card" ? waiting.method.card : undefined;
  const total = money(session.amount_total as number, session.currency as string);
  const brandName = card ? card.brand.charAt(0).toUpperCase() + card.brand.slice(1) : "Card";
  return html(
    document(
      `${ctx.brand}: authenticate your payment`,
      CHECKOUT_STYLE,
      `<main><section aria-labelledby="authenticate"><h1 id="authenticate">Authenticate your payment<span class="badge">Test mode</span></h1>
<p>Your bank asks you to confirm the payment of <strong>${escape(total)}</strong> to ${escape(ctx.brand)} with ${escape(brandName)} ending in ${escape(card?.last4 ?? "")}.</p>
<p class="muted">This is Stripe's 3D Secure test step: in live mode the card's bank shows its own. Complete it to pay, or fail it to see what a buyer who cannot authenticate sees.</p></section>
<section><form method="post" action="${authenticationPath(session.id)}" aria-label="3D Secure authentication">
<button type="submit" name="outcome" value="complete">Complete authentication</button>
<button type="submit" name="outcome" value="fail" class="secondary">Fail authentication</button></form></section></main>`,
    ),
  );
}

async function authenticateFromForm(ctx: PageContext, session: StripeObject, request: Request): Promise<Response> {
  const form = new URLSearchParams(new TextDecoder().decode(await readBody(request, 4 * 1024)));
  const outcome = form.get("outcome");
  if (outcome !== "complete" && outcome !== "fail") return seeOther(authenticationPath(session.id));
  const waiting = ctx.payments.awaitingAuthentication(session.id);
  const result = ctx.payments.authenticate(session.id, outcome);
  const entry: Entry = { method: "card", values: { email: waiting?.email ?? "", name: waiting?.name ?? "" } };
  return afterAttempt(ctx, session, result, entry);
}

// ---------------------------------------------------------------- the dashboard

const DASHBOARD_STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:80rem;margin:2rem auto;padding:0 1rem;color:#0f172a}
table{width:100%;border-collapse:collapse;margin:1rem 0 2rem}th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e2e8f0;vertical-align:top}
code{font-size:.85em;word-break:break-all}.meta{color:#475569}form{display:inline}
button{font:inherit;padding:.2rem .6rem;margin:.1rem;border:1px solid #94a3b8;border-radius:.3rem;background:#f8fafc;cursor:pointer}
.ok{color:#166534}.bad{color:#b91c1c}.wait{color:#92400e}dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}`;

const deliveryLabel = (d: Delivery | undefined) => {
  if (!d) return `<span class="meta">not sent</span>`;
  const last = d.attempts.at(-1);
  const status = last ? (last.status ?? last.error ?? "no answer") : "queued";
  const attempts = `${d.attempts.length} attempt${d.attempts.length === 1 ? "" : "s"}`;
  if (d.status === "succeeded") return `<span class="ok">delivered (${status}, ${attempts})</span>`;
  if (d.status === "failed") return `<span class="bad">failed (${escape(String(status))}, ${attempts})</span>`;
  if (!last) return `<span class="wait">queued</span>`;
  const next = d.nextAttemptAt ? `, next ${new Date(d.nextAttemptAt).toLocaleTimeString("en-US")}` : "";
  return `<span class="wait">pending (${escape(String(status))}, ${attempts}${next})</span>`;
};

function dashboard(ctx: PageContext, message?: string, status = 200): Response {
  const store = ctx.payments.store;
  // Oldest first: a session's events in the order they happened.
  const events = store
    .all("event")
    .map((e) => e.data)
    .reverse();
  const sessionOf = (event: StripeObject) => {
    const object = (event.data as { object: StripeObject }).object;
    if (object.object === "checkout.session") return object.id;
    const intent = object.object === "payment_intent" ? object.id : (object.payment_intent as string | undefined);
    return intent ? store.all("checkout.session").find((s) => s.data.payment_intent === intent)?.data.id : undefined;
  };
  const eventsBySession = new Map<string, StripeObject[]>();
  for (const event of events) {
    const id = sessionOf(event);
    if (id) eventsBySession.set(id, [...(eventsBySession.get(id) ?? []), event]);
  }
  const button = (sessionId: string, action: string, label: string) =>
    `<form method="post" action="${STRIPE_PAGES_PATH}/sessions/${encodeURIComponent(sessionId)}/${action}"><button type="submit">${label}</button></form>`;
  const rows = store
    .all("checkout.session")
    .map(({ data: s }) => {
      const intent = s.payment_intent ? store.get("payment_intent", s.payment_intent as string) : undefined;
      const charge = intent?.latest_charge ? store.get("charge", intent.latest_charge as string) : undefined;
      const email =
        (s.customer_details as { email?: string } | null)?.email ?? (s.customer_email as string | null) ?? "";
      const actions = [
        s.status === "open" ? button(s.id, "expire", "Expire") : "",
        intent?.status === "processing"
          ? button(s.id, "settle", "Settle payment") + button(s.id, "fail", "Fail payment")
          : "",
        charge?.status === "succeeded" && !charge.refunded && !ctx.payments.disputes.chargedBack(charge.id)
          ? button(s.id, "refund", "Refund")
          : "",
      ].join("");
      const sessionEvents = (eventsBySession.get(s.id) ?? [])
        .map(
          (e) => `<div><code>${escape(e.type as string)}</code>: ${deliveryLabel(store.state.deliveries[e.id])}</div>`,
        )
        .join("");
      const refunded =
        charge && (charge.amount_refunded as number) > 0
          ? `, refunded ${money(charge.amount_refunded as number, s.currency as string)}`
          : "";
      const failedRefunds = charge
        ? store
            .all("refund")
            .filter((r) => r.data.charge === charge.id && r.data.status === "failed")
            .map((r) => `, refund of ${money(r.data.amount as number, s.currency as string)} failed`)
            .join("")
        : "";
      const disputed = charge
        ? store
            .all("dispute")
            .filter((d) => d.data.charge === charge.id)
            .map((d) => `, disputed (${String(d.data.reason)}): ${String(d.data.status)}`)
            .join("")
        : "";
      return `<tr><td>${escape(new Date((s.created as number) * 1000).toLocaleString("en-US"))}</td>
<td><code>${escape(s.id)}</code>${s.status === "open" ? `<br><a href="${CHECKOUT_PATH}/${encodeURIComponent(s.id)}">Checkout page</a>` : ""}</td>
<td>${escape(s.status as string)}</td><td>${escape(s.payment_status as string)}${intent ? `<br><span class="meta">${escape(intent.status as string)}${escape(refunded + failedRefunds + disputed)}</span>` : ""}</td>
<td>${escape(money(s.amount_total as number, s.currency as string))}</td><td>${escape(email)}</td>
<td>${sessionEvents || `<span class="meta">none yet</span>`}</td><td>${actions}</td></tr>`;
    })
    .join("");
  const log = Object.values(store.state.deliveries)
    .sort((a, b) => b.seq - a.seq)
    .slice(0, 200)
    .map(
      (d) =>
        `<tr><td><code>${escape(d.eventId)}</code></td><td><code>${escape(d.type)}</code></td><td>${deliveryLabel(d)}</td>` +
        `<td>${d.status === "failed" ? `<form method="post" action="${STRIPE_PAGES_PATH}/events/${encodeURIComponent(d.eventId)}/resend"><button type="submit">Resend</button></form>` : ""}</td></tr>`,
    )
    .join("");
  return html(
    document(
      "Stripe (local stand-in)",
      DASHBOARD_STYLE,
      `<main><h1>Stripe (local stand-in)</h1>
<p class="meta">Test mode, on this machine only. The functions use it when STRIPE_SECRET_KEY is not set.</p>
${message ? `<p role="status"><strong>${escape(message)}</strong></p>` : ""}
<dl><dt>API</dt><dd><code>${escape(ctx.url)}</code> (STRIPE_API_URL)</dd>
<dt>Secret key</dt><dd><code>${escape(ctx.secretKey)}</code></dd>
${ctx
  .restrictedKeys()
  .map(
    (k) =>
      `<dt>${escape(k.name)}</dt><dd><code>${escape(k.key)}</code><br><span class="meta">${escape(
        Object.entries(k.permissions)
          .map(([resource, access]) => `${resource}: ${access === "write" ? "Write" : "Read"}`)
          .join(", ") || "no permissions",
      )}</span></dd>`,
  )
  .join("\n")}
<dt>Webhook endpoint</dt><dd><code>${escape(ctx.webhookUrl)}</code></dd>
<dt>Signing secret</dt><dd><code>${escape(ctx.webhookSecret)}</code></dd></dl>
<h2>Checkout Sessions</h2>
${
  rows
    ? `<table><thead><tr><th scope="col">Created</th><th scope="col">Session</th><th scope="col">Status</th><th scope="col">Payment</th><th scope="col">Amount</th><th scope="col">E-mail</th><th scope="col">Events</th><th scope="col">Actions</th></tr></thead><tbody>${rows}</tbody></table>`
    : "<p>No Checkout Sessions yet.</p>"
}
${billingTables(ctx)}
<h2>Webhook deliveries</h2>
${
  log
    ? `<table><thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Delivery</th><th scope="col"><span class="meta">Action</span></th></tr></thead><tbody>${log}</tbody></table>`
    : "<p>No events yet.</p>"
}</main>`,
    ),
    status,
  );
}

const when = (seconds: number) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z").replace("T", " ");

/**
 * The dashboard's subscriptions (newest first: customer, price, status, the next charge, the
 * clock they live on) and test clocks, each with a button that advances it a month.
 */
function billingTables(ctx: PageContext): string {
  const store = ctx.payments.store;
  const subscriptions = store
    .all("subscription")
    .map(({ data: sub }) => {
      const item = (sub.items as { data: StripeObject[] }).data[0]!;
      const price = item.price as unknown as StripeObject;
      const product = store.get("product", price.product as string);
      const customer = store.get("customer", sub.customer as string);
      const invoice = sub.latest_invoice ? store.get("invoice", sub.latest_invoice as string) : undefined;
      const ended = sub.status === "canceled";
      const next = ended
        ? `ended ${when(sub.ended_at as number)}`
        : sub.cancel_at
          ? `cancels ${when(sub.cancel_at as number)}`
          : when(item.current_period_end as number);
      return `<tr><td><code>${escape(sub.id)}</code>${sub.schedule ? `<br><span class="meta">schedule <code>${escape(String(sub.schedule))}</code></span>` : ""}</td>
<td>${escape(String(customer?.email ?? sub.customer))}</td><td>${escape(String(product?.name ?? ""))}<br><span class="meta">${escape(money(price.unit_amount as number, price.currency as string))} ${escape(intervalLabel(price))}</span></td>
<td>${escape(String(sub.status))}</td><td>${escape(next)}</td>
<td>${invoice ? `<a href="${INVOICES_PATH}/${encodeURIComponent(invoice.id)}">${escape(String(invoice.number ?? invoice.id))}</a>: ${escape(String(invoice.status))}` : ""}</td>
<td>${sub.test_clock ? `<code>${escape(String(sub.test_clock))}</code>` : `<span class="meta">wall clock</span>`}</td></tr>`;
    })
    .join("");
  const clocks = store
    .all("test_helpers.test_clock")
    .map(({ data: clock }) => {
      const customers = store.all("customer").filter((c) => c.data.test_clock === clock.id).length;
      return `<tr><td>${escape(String(clock.name ?? ""))}<br><code>${escape(clock.id)}</code></td><td>${escape(when(clock.frozen_time as number))}</td>
<td>${escape(String(clock.status))}</td><td>${customers}</td>
<td><form method="post" action="${STRIPE_PAGES_PATH}/clocks/${encodeURIComponent(clock.id)}/advance"><button type="submit">Advance one month</button></form></td></tr>`;
    })
    .join("");
  return `<h2>Subscriptions</h2>
${
  subscriptions
    ? `<table><thead><tr><th scope="col">Subscription</th><th scope="col">Customer</th><th scope="col">Price</th><th scope="col">Status</th><th scope="col">Next charge</th><th scope="col">Latest invoice</th><th scope="col">Clock</th></tr></thead><tbody>${subscriptions}</tbody></table>`
    : "<p>No subscriptions yet.</p>"
}
<h2>Test clocks</h2>
<p class="meta">Advancing a clock one month (and an hour: Stripe finalizes and charges a renewal an hour after its period ends) bills what falls due for its customers, in time order.</p>
${
  clocks
    ? `<table><thead><tr><th scope="col">Clock</th><th scope="col">Frozen time (UTC)</th><th scope="col">Status</th><th scope="col">Customers</th><th scope="col"><span class="meta">Action</span></th></tr></thead><tbody>${clocks}</tbody></table>`
    : "<p>No test clocks yet.</p>"
}`;
}

/** Where the dashboard's button moves a clock: a month on, and the hour a renewal waits before it is charged. */
function monthLater(frozenTime: number): number {
  return addInterval(frozenTime, "month", 1) + 60 * 60;
}

const ACTIONS = ["settle", "fail", "refund", "expire"] as const;

/** Answers the stand-in's pages; null when the path is not one of them. */
export async function stripePage(request: Request, ctx: PageContext): Promise<Response | null> {
  const { pathname } = new URL(request.url);
  if (pathname !== STRIPE_PAGES_PATH && !pathname.startsWith(`${STRIPE_PAGES_PATH}/`)) return null;
  // A page on another site may not press these buttons in the developer's browser.
  if (request.method === "POST") {
    const origin = request.headers.get("origin");
    if (origin && origin !== "null" && origin !== new URL(request.url).origin && origin !== new URL(ctx.url).origin) {
      return html(document("Refused", DASHBOARD_STYLE, "<p>Cross-site request refused.</p>"), 403);
    }
  }
  const payments = ctx.payments;
  payments.sweep();

  if (pathname === STRIPE_PAGES_PATH && request.method === "GET") return dashboard(ctx);
  const receipt = request.method === "GET" ? ctx.receipt(pathname) : null;
  if (receipt) return receipt;
  if (pathname === `${STRIPE_PAGES_PATH}/deliveries.json` && request.method === "GET") {
    return new Response(JSON.stringify(Object.values(payments.store.state.deliveries).sort((a, b) => a.seq - b.seq)), {
      headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
    });
  }

  const checkout = new RegExp(`^${CHECKOUT_PATH}/([^/]+)(/authenticate)?$`).exec(pathname);
  if (checkout) {
    const session = payments.store.get("checkout.session", decodeURIComponent(checkout[1]!));
    if (!session) {
      return html(
        document(
          "Not found",
          CHECKOUT_STYLE,
          `<main><p class="notice">This Checkout Session does not exist.</p></main>`,
        ),
        404,
      );
    }
    if (checkout[2]) {
      if (request.method === "POST") return authenticateFromForm(ctx, session, request);
      if (request.method !== "GET") return new Response(null, { status: 405, headers: { allow: "GET, POST" } });
      const waiting = session.status === "open" ? payments.awaitingAuthentication(session.id) : undefined;
      return waiting
        ? authenticationPage(ctx, session, waiting)
        : seeOther(`${CHECKOUT_PATH}/${encodeURIComponent(session.id)}`);
    }
    if (request.method === "GET") return checkoutPage(ctx, session);
    if (request.method === "POST") return payFromForm(ctx, session, request);
    return new Response(null, { status: 405, headers: { allow: "GET, POST" } });
  }

  const action = new RegExp(`^${STRIPE_PAGES_PATH}/sessions/([^/]+)/(${ACTIONS.join("|")})$`).exec(pathname);
  if (action && request.method === "POST") {
    const id = decodeURIComponent(action[1]!);
    try {
      const verb = action[2] as (typeof ACTIONS)[number];
      if (verb === "settle") payments.settle(id);
      else if (verb === "fail") payments.fail(id);
      else if (verb === "expire") payments.expire(id, NO_REQUEST);
      else {
        const session = payments.store.get("checkout.session", id);
        payments.refund({ paymentIntent: (session?.payment_intent as string | null) ?? "" }, {}, NO_REQUEST);
      }
    } catch (error) {
      return dashboard(ctx, (error as Error).message, 409);
    }
    return new Response(null, { status: 303, headers: { location: STRIPE_PAGES_PATH } });
  }

  const advance = new RegExp(`^${STRIPE_PAGES_PATH}/clocks/([^/]+)/advance$`).exec(pathname);
  if (advance && request.method === "POST") {
    const clock = payments.store.get("test_helpers.test_clock", decodeURIComponent(advance[1]!));
    try {
      if (!clock) throw new Error("No such test clock.");
      payments.billing.advanceClock(clock.id, monthLater(clock.frozen_time as number), NO_REQUEST);
      payments.store.save();
    } catch (error) {
      return dashboard(ctx, (error as Error).message, 409);
    }
    return new Response(null, { status: 303, headers: { location: STRIPE_PAGES_PATH } });
  }

  const billingPage = await billingPages(request, pathname, ctx);
  if (billingPage) return billingPage;

  const resend = new RegExp(`^${STRIPE_PAGES_PATH}/events/([^/]+)/resend$`).exec(pathname);
  if (resend && request.method === "POST") {
    try {
      ctx.resend(decodeURIComponent(resend[1]!));
    } catch (error) {
      return dashboard(ctx, (error as Error).message, 409);
    }
    return new Response(null, { status: 303, headers: { location: STRIPE_PAGES_PATH } });
  }
  return html(
    document("Not found", DASHBOARD_STYLE, `<p>Not found. <a href="${STRIPE_PAGES_PATH}">Stripe dashboard</a></p>`),
    404,
  );
}
