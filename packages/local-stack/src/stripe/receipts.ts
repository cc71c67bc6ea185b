/**
 * Stripe's receipts, for the Stripe stand-in: every succeeded charge has a `receipt_url`, a page
 * that shows the charge as it is now, refunds included (here `/_local/stripe/receipts/<charge>`,
 * answered to this machine only); and a receipt is e-mailed, once per charge, when the charge
 * succeeds (a card at once, a bank debit when it settles) and has an address to go to: the
 * PaymentIntent's `receipt_email` (Checkout: `payment_intent_data.receipt_email`), which Stripe
 * honours "regardless of your Customer emails settings", or, with the account's "Successful
 * payments" customer e-mail on, the customer's address. Sending sets the charge's
 * `receipt_number` and `receipt_email`. A refund of a charge whose receipt had an address is
 * e-mailed too (with "Refunds" on, to the customer's address otherwise), and the refund gets its
 * own `receipt_number`. The e-mails come as Stripe's do, from `receipts+acct_…@stripe.com` in the
 * business's name: "Your receipt from <business> #1234-5678".
 *
 * Stripe sends no automatic receipts in test mode ("would send receipt in live mode"); the
 * stand-in, whose objects are test mode, sends them as live mode does, so the outbox shows every
 * e-mail a buyer gets in production (packages/local-stack/README.md). Dev and test only.
 */
import { createHash, randomInt } from "node:crypto";
import type { Mailer } from "../mail.ts";
import type { Store, StripeObject } from "./store.ts";

export const RECEIPTS_PATH = "/_local/stripe/receipts";

/** The account's "Customer emails" settings (Dashboard, Settings, Customer emails); both off on a new account. */
export interface CustomerEmails {
  /** "Successful payments": a receipt to the customer's address when the PaymentIntent names none. */
  successfulPayments?: boolean;
  /** "Refunds": a refund receipt to the customer's address when the payment's receipt had none. */
  refunds?: boolean;
}

export interface Receipts {
  /** The receipt page of a charge: its `receipt_url`. */
  urlOf(chargeId: string): string;
  /** E-mails the receipt of a charge that has just succeeded, once; sets `receipt_number` and `receipt_email`. */
  paid(charge: StripeObject): void;
  /** E-mails the receipt of a refund, when its charge's receipt had an address; sets the refund's `receipt_number`. */
  refunded(charge: StripeObject, refund: StripeObject): void;
  /** Answers a receipt page; null for other paths. */
  page(pathname: string): Response | null;
}

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const money = (cents: number, currency: string) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(cents / 100);

const day = (seconds: number) =>
  new Date(seconds * 1000).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric" });

/** Stripe's receipt numbers: two groups of four digits, as `#1623-1349`. */
const receiptNumber = () => `${randomInt(1000, 10_000)}-${String(randomInt(0, 10_000)).padStart(4, "0")}`;

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** An account id in Stripe's form (`acct_1…`, 16 characters), the same for one secret key. */
export function accountIdOf(secretKey: string): string {
  const digest = createHash("sha256").update(secretKey).digest();
  return `acct_1${[...digest.subarray(0, 15)].map((byte) => ALPHABET[byte % ALPHABET.length]).join("")}`;
}

/** "Visa – 4242", or the bank's name and the account's last four digits. */
function methodLabel(charge: StripeObject): string {
  const details = charge.payment_method_details as {
    type: string;
    card?: { brand: string; last4: string };
    us_bank_account?: { bank_name: string; last4: string };
  };
  if (details.card) {
    const brand = details.card.brand === "amex" ? "American Express" : details.card.brand;
    return `${brand.charAt(0).toUpperCase()}${brand.slice(1)} – ${details.card.last4}`;
  }
  return `${details.us_bank_account?.bank_name ?? "Bank account"} – ${details.us_bank_account?.last4 ?? ""}`;
}

export function createReceipts(input: {
  store: Store;
  mail: Mailer;
  brand: string;
  url: string;
  secretKey: string;
  customerEmails?: CustomerEmails;
}): Receipts {
  const { store, mail, brand } = input;
  const settings = input.customerEmails ?? {};
  const from = `${brand} <receipts+${accountIdOf(input.secretKey)}@stripe.com>`;
  const urlOf = (chargeId: string) => `${input.url}${RECEIPTS_PATH}/${chargeId}`;

  /** The line items the charge paid: its Checkout Session's. */
  const itemsOf = (charge: StripeObject) => {
    const session = store.all("checkout.session").find((s) => s.data.payment_intent === charge.payment_intent);
    return session ? (store.state.checkout[session.data.id]?.lineItems ?? []) : [];
  };

  /** The customer's address: the Customer's, else the one the buyer gave at checkout. */
  const customerAddress = (charge: StripeObject) => {
    const customer = charge.customer ? store.get("customer", charge.customer as string) : undefined;
    return (
      (customer?.email as string | null | undefined) ??
      (charge.billing_details as { email: string | null } | null)?.email ??
      null
    );
  };

  /** The receipt, as the e-mail and the page show it. */
  function receiptHtml(charge: StripeObject, heading: string, rows: [string, string][], link?: string) {
    const currency = charge.currency as string;
    const items = itemsOf(charge)
      .map((item) => {
        const quantity = item.quantity as number;
        return `<tr><td>${escape(item.description as string)}${quantity > 1 ? ` × ${quantity}` : ""}</td><td style="text-align:right">${escape(money(item.amount_total as number, currency))}</td></tr>`;
      })
      .join("");
    const refunded = charge.amount_refunded as number;
    return `<div style="font:15px/1.5 -apple-system,'Segoe UI',Roboto,sans-serif;color:#1a1a1a;max-width:32rem;margin:0 auto;padding:1.5rem">
<p style="color:#687385;margin:0">${escape(brand)}</p>
<h1 style="font-size:1.5rem;margin:.25rem 0 1rem">${escape(heading)}</h1>
<table style="width:100%;border-collapse:collapse;margin-bottom:1.25rem">${rows
      .map(
        ([label, value]) =>
          `<tr><td style="color:#687385;padding:.2rem 0">${escape(label)}</td><td style="text-align:right">${escape(value)}</td></tr>`,
      )
      .join("")}</table>
<h2 style="font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#687385">Summary</h2>
<table style="width:100%;border-collapse:collapse;background:#f6f8fa;border-radius:.5rem">${items}
<tr><td><strong>Amount charged</strong></td><td style="text-align:right"><strong>${escape(money(charge.amount as number, currency))}</strong></td></tr>${
      refunded > 0
        ? `<tr><td>Refunded</td><td style="text-align:right">−${escape(money(refunded, currency))}</td></tr>`
        : ""
    }</table>
${link ? `<p style="margin-top:1.25rem"><a href="${escape(link)}">View receipt</a></p>` : ""}
<p style="color:#687385;font-size:.85rem;margin-top:1.5rem">Something wrong with this payment? Contact ${escape(brand)}.<br>
You're receiving this email because you made a purchase at ${escape(brand)}, which partners with Stripe to provide invoicing and payment processing.</p></div>`;
  }

  /** The receipt's plain-text part: the same facts, a line each. */
  function receiptText(charge: StripeObject, heading: string, rows: [string, string][], link: string) {
    const currency = charge.currency as string;
    const items = itemsOf(charge).map((item) => {
      const quantity = item.quantity as number;
      return `${item.description as string}${quantity > 1 ? ` × ${quantity}` : ""}: ${money(item.amount_total as number, currency)}`;
    });
    const refunded = charge.amount_refunded as number;
    return [
      heading,
      "",
      ...rows.map(([label, value]) => `${label}: ${value}`),
      "",
      "Summary",
      ...items,
      `Amount charged: ${money(charge.amount as number, currency)}`,
      ...(refunded > 0 ? [`Refunded: −${money(refunded, currency)}`] : []),
      "",
      `View receipt: ${link}`,
      "",
      `Something wrong with this payment? Contact ${brand}.`,
    ].join("\n");
  }

  return {
    urlOf,

    paid(charge) {
      if (charge.status !== "succeeded" || charge.receipt_number) return;
      const to =
        (charge.receipt_email as string | null) ?? (settings.successfulPayments ? customerAddress(charge) : null);
      if (!to) return;
      const number = receiptNumber();
      charge.receipt_number = number;
      charge.receipt_email = to;
      const rows: [string, string][] = [
        ["Receipt number", `#${number}`],
        ["Amount paid", money(charge.amount as number, charge.currency as string)],
        ["Date paid", day(charge.created as number)],
        ["Payment method", methodLabel(charge)],
      ];
      const heading = `Receipt from ${brand}`;
      mail.send({
        from,
        to,
        subject: `Your receipt from ${brand} #${number}`,
        html: receiptHtml(charge, heading, rows, urlOf(charge.id)),
        text: receiptText(charge, heading, rows, urlOf(charge.id)),
      });
    },

    refunded(charge, refund) {
      const to = (charge.receipt_email as string | null) ?? (settings.refunds ? customerAddress(charge) : null);
      if (!to || refund.receipt_number) return;
      const number = receiptNumber();
      refund.receipt_number = number;
      const rows: [string, string][] = [
        ["Refund number", `#${number}`],
        ["Amount refunded", money(refund.amount as number, refund.currency as string)],
        ["Date refunded", day(refund.created as number)],
        ["Payment method", methodLabel(charge)],
      ];
      const heading = `Refund from ${brand}`;
      mail.send({
        from,
        to,
        subject: `Your refund from ${brand} #${number}`,
        html: receiptHtml(charge, heading, rows, urlOf(charge.id)),
        text: receiptText(charge, heading, rows, urlOf(charge.id)),
      });
    },

    page(pathname) {
      if (!pathname.startsWith(`${RECEIPTS_PATH}/`)) return null;
      const charge = store.get("charge", decodeURIComponent(pathname.slice(RECEIPTS_PATH.length + 1)));
      const headers = { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" };
      if (!charge || !charge.receipt_url) {
        return new Response(
          `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Receipt not found</title></head><body><p>This receipt does not exist.</p></body></html>`,
          { status: 404, headers },
        );
      }
      const currency = charge.currency as string;
      const rows: [string, string][] = [
        ...(charge.receipt_number
          ? [["Receipt number", `#${charge.receipt_number as string}`] as [string, string]]
          : []),
        ["Amount paid", money(charge.amount as number, currency)],
        ["Date paid", day(charge.created as number)],
        ["Payment method", methodLabel(charge)],
      ];
      const heading = charge.refunded ? `Refunded receipt from ${brand}` : `Receipt from ${brand}`;
      return new Response(
        `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escape(heading)}</title></head><body style="background:#f6f8fa;margin:0">
<main style="background:#fff;max-width:34rem;margin:2rem auto;border-radius:.75rem">${receiptHtml(charge, heading, rows)}</main></body></html>`,
        { headers },
      );
    },
  };
}
