/**
 * Receipts in the local stack's Stripe stand-in (packages/local-stack/src/stripe/receipts.ts),
 * driven by the real `stripe` library and the hosted page's form, as
 * packages/local-stack/tests/integration/stripe.test.ts drives the rest:
 * `payment_intent_data.receipt_email` on a Checkout Session, the `receipt_url` of every succeeded
 * charge and the page it leads to, the receipt e-mail (once per charge, when the charge succeeds: a
 * card at once, a bank debit when it settles) with its `receipt_number`, the account's "Successful
 * payments" setting, and the refund receipt. Each test names the Stripe rule it pins (API
 * reference: Charge `receipt_*`, Checkout Session `payment_intent_data.receipt_email`; docs: Email
 * receipts). The stand-in keeps its state in files, so one backend (PGlite) suffices.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, linkProduct } from "../../src/harness.ts";
import type { Mail } from "../../src/mail.ts";
import { accountIdOf } from "../../src/stripe/receipts.ts";
import { payOnPage, TEST_BANK as BANK, TEST_CARD as CARD } from "../../../../tests/support/stripe-events.ts";

const project = mkdtempSync(join(tmpdir(), "stripe-receipts-"));
const functionsDir = join(project, "functions");
// The events' endpoint: takes every delivery (this file is about what the buyer receives).
mkdirSync(join(functionsDir, "stripe-webhook"), { recursive: true });
linkProduct(functionsDir);
writeFileSync(
  join(functionsDir, "stripe-webhook", "handler.ts"),
  `export default async function handler() { return new Response("{}", { status: 200 }); }\n`,
);

let serial = 0;
const address = (name: string) => `${name}.${Date.now().toString(36)}${serial++}@example.com`;

async function startReceiptStack(customerEmails?: { successfulPayments?: boolean; refunds?: boolean }) {
  const stack = await startTestStack(
    { name: "PGlite" },
    {
      seed: false,
      functionsDir,
      config: { functions: { "stripe-webhook": { verifyJwt: false } } },
      stripe: { catalogue: false, customerEmails },
    },
  );
  const stripe = new Stripe(stack.stripe.secretKey, {
    host: "localhost",
    port: stack.port,
    protocol: "http",
    httpClient: Stripe.createFetchHttpClient(),
  });
  const product = await stripe.products.create({ name: "Growth Mindset Mastery" });
  const price = await stripe.prices.create({ product: product.id, unit_amount: 49_700, currency: "usd" });
  const newSession = (params: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
    stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [{ price: price.id, quantity: 1 }],
      success_url: `${stack.url}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
      ...params,
    });
  /** The session's charge, through its PaymentIntent. */
  const chargeOf = async (sessionId: string) => {
    const session = await stripe.checkout.sessions.retrieve(sessionId, { expand: ["payment_intent.latest_charge"] });
    const intent = session.payment_intent as Stripe.PaymentIntent;
    return { intent, charge: intent.latest_charge as Stripe.Charge };
  };
  const mailTo = (to: string): Mail[] => stack.mail.list().filter((m) => m.to === to);
  return { stack, stripe, newSession, chargeOf, mailTo };
}

// Both stacks read the fixture's functions folder at start: it goes when the file is done.
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("Stripe stand-in receipts", () => {
  let ctx: Awaited<ReturnType<typeof startReceiptStack>>;
  beforeAll(async () => {
    ctx = await startReceiptStack();
  }, 60_000);
  afterAll(() => ctx?.stack.stop());

  it("refuses a malformed payment_intent_data.receipt_email as Stripe does, naming the param (Checkout Session create)", async () => {
    const refused = await ctx.newSession({ payment_intent_data: { receipt_email: "not-an-address" } }).catch((e) => e);
    expect(refused).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(refused).toMatchObject({
      statusCode: 400,
      code: "email_invalid",
      param: "payment_intent_data[receipt_email]",
      message: "Invalid email address: not-an-address",
    });
  });

  it("e-mails a card payment's receipt once to the PaymentIntent's receipt_email, as Stripe does whatever the Customer emails settings; the charge gets receipt_url, receipt_number and receipt_email", async () => {
    const { stack, stripe } = ctx;
    const email = address("card");
    const session = await ctx.newSession({ customer_email: email, payment_intent_data: { receipt_email: email } });
    expect((await payOnPage(session, CARD)).status).toBe(303);
    const { intent, charge } = await ctx.chargeOf(session.id);
    expect(intent.receipt_email).toBe(email);
    expect(charge).toMatchObject({
      status: "succeeded",
      receipt_email: email,
      receipt_url: `${stack.url}/_local/stripe/receipts/${charge.id}`,
    });
    expect(charge.receipt_number).toMatch(/^\d{4}-\d{4}$/);

    const receipts = ctx.mailTo(email);
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({
      from: `Advisor Accelerator <receipts+${accountIdOf(stack.stripe.secretKey)}@stripe.com>`,
      subject: `Your receipt from Advisor Accelerator #${charge.receipt_number}`,
    });
    expect(accountIdOf(stack.stripe.secretKey)).toMatch(/^acct_1\w{15}$/);
    expect(receipts[0]!.html).toContain(`href="${charge.receipt_url}"`);
    expect(receipts[0]!.text).toContain(`Receipt number: #${charge.receipt_number}\nAmount paid: $497.00\n`);
    expect(receipts[0]!.text).toContain("Payment method: Visa – 4242");
    expect(receipts[0]!.text).toContain("Growth Mindset Mastery: $497.00");
    expect(receipts[0]!.text).toContain(`View receipt: ${charge.receipt_url}`);

    // Stripe sends the receipt after the charge: charge.succeeded already carries the page, not yet the number.
    const { data: events } = await stripe.events.list({ type: "charge.succeeded", limit: 100 });
    const event = events.find((e) => (e.data.object as Stripe.Charge).id === charge.id)!;
    expect(event.data.object).toMatchObject({
      receipt_url: charge.receipt_url,
      receipt_email: email,
      receipt_number: null,
    });
  });

  it("serves the receipt page of receipt_url: the business, the amount paid, the date, the card, the receipt number and the item (Email receipts: the link shows the charge as it is now)", async () => {
    const email = address("page");
    const session = await ctx.newSession({ payment_intent_data: { receipt_email: email } });
    await payOnPage(session, { ...CARD, email });
    const { charge } = await ctx.chargeOf(session.id);
    const page = await fetch(charge.receipt_url!);
    expect(page.status).toBe(200);
    const html = await page.text();
    for (const part of [
      "Receipt from Advisor Accelerator",
      "$497.00",
      new Date(charge.created * 1000).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric" }),
      "Visa – 4242",
      `#${charge.receipt_number}`,
      "Growth Mindset Mastery",
    ]) {
      expect(html).toContain(part);
    }
    expect((await fetch(`${ctx.stack.url}/_local/stripe/receipts/ch_nope`)).status).toBe(404);
  });

  it("sends nothing without an address while Successful payments is off, but still gives the charge its receipt_url (receipt_number stays null)", async () => {
    const email = address("quiet");
    const session = await ctx.newSession({ customer_email: email });
    await payOnPage(session, CARD);
    const { intent, charge } = await ctx.chargeOf(session.id);
    expect(intent.receipt_email).toBeNull();
    expect(charge).toMatchObject({ receipt_email: null, receipt_number: null });
    expect(charge.receipt_url).toMatch(/\/_local\/stripe\/receipts\/ch_/);
    expect(ctx.mailTo(email)).toEqual([]);
  });

  it("gives a declined charge no receipt: no receipt_url, no e-mail (Email receipts: only for a successful payment)", async () => {
    const email = address("declined");
    const session = await ctx.newSession({ customer_email: email, payment_intent_data: { receipt_email: email } });
    expect((await payOnPage(session, { ...CARD, card_number: "4000 0000 0000 0002" })).status).toBe(402);
    const { charge } = await ctx.chargeOf(session.id);
    expect(charge).toMatchObject({ status: "failed", receipt_url: null, receipt_number: null });
    expect(ctx.mailTo(email)).toEqual([]);
  });

  it("e-mails a bank debit's receipt when it settles, not while it is pending", async () => {
    const email = address("bank");
    const session = await ctx.newSession({ customer_email: email, payment_intent_data: { receipt_email: email } });
    await payOnPage(session, BANK);
    const pending = (await ctx.chargeOf(session.id)).charge;
    expect(pending).toMatchObject({ status: "pending", receipt_url: null, receipt_number: null, receipt_email: email });
    expect(ctx.mailTo(email)).toEqual([]);
    ctx.stack.stripe.settle(session.id);
    const { charge } = await ctx.chargeOf(session.id);
    expect(charge.receipt_url).toBe(`${ctx.stack.url}/_local/stripe/receipts/${charge.id}`);
    expect(charge.receipt_number).toMatch(/^\d{4}-\d{4}$/);
    expect(ctx.mailTo(email).map((m) => m.subject)).toEqual([
      `Your receipt from Advisor Accelerator #${charge.receipt_number}`,
    ]);
    expect(await (await fetch(charge.receipt_url!)).text()).toContain("STRIPE TEST BANK – 6789");
  });

  it("e-mails a refund receipt to the payment's receipt address, with the refund's own receipt_number; the receipt page shows the refund (Email receipts: refund receipts)", async () => {
    const { stripe } = ctx;
    const email = address("refund");
    const session = await ctx.newSession({ customer_email: email, payment_intent_data: { receipt_email: email } });
    await payOnPage(session, CARD);
    const { intent, charge } = await ctx.chargeOf(session.id);
    const refund = await stripe.refunds.create({ payment_intent: intent.id });
    const kept = await stripe.refunds.retrieve(refund.id);
    expect(kept.receipt_number).toMatch(/^\d{4}-\d{4}$/);
    expect(kept.receipt_number).not.toBe(charge.receipt_number);
    expect(ctx.mailTo(email).map((m) => m.subject)).toEqual([
      `Your refund from Advisor Accelerator #${kept.receipt_number}`,
      `Your receipt from Advisor Accelerator #${charge.receipt_number}`,
    ]);
    const page = await (await fetch(charge.receipt_url!)).text();
    expect(page).toContain("Refunded receipt from Advisor Accelerator");
    expect(page).toContain("−$497.00");
    // Still one payment receipt: it is sent once per charge.
    expect((await ctx.chargeOf(session.id)).charge.receipt_number).toBe(charge.receipt_number);
  });
});

describe("Stripe stand-in receipts with Successful payments on", () => {
  let ctx: Awaited<ReturnType<typeof startReceiptStack>>;
  beforeAll(async () => {
    ctx = await startReceiptStack({ successfulPayments: true });
  }, 60_000);
  afterAll(() => ctx?.stack.stop());

  it("e-mails the receipt to the address the buyer gave at checkout when the PaymentIntent names none, and records it as the charge's receipt_email", async () => {
    const email = address("setting");
    const session = await ctx.newSession();
    await payOnPage(session, { ...CARD, email });
    const { intent, charge } = await ctx.chargeOf(session.id);
    expect(intent.receipt_email).toBeNull();
    expect(charge.receipt_email).toBe(email);
    expect(ctx.mailTo(email).map((m) => m.subject)).toEqual([
      `Your receipt from Advisor Accelerator #${charge.receipt_number}`,
    ]);
  });
});
