/**
 * The Stripe stand-in's Billing pages, under `/_local/stripe` (./pages.ts answers the rest):
 * - the hosted invoice page an invoice's `hosted_invoice_url` leads to
 *   (`/_local/stripe/invoices/<id>`): the merchant, the invoice's number, lines and amount due, and
 *   while it is open a card form that pays it, with the checkout page's checks and test cards
 *   (docs: Hosted invoice page: "customers can pay an invoice"; a card paid with here pays this
 *   invoice only, and is not made the subscription's default). A plain HTML form, no script.
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
  INVOICES_PATH,
  money,
  type PageContext,
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
  return null;
}
