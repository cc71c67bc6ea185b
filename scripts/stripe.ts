/**
 * Stripe operations on the account STRIPE_SECRET_KEY names:
 *   npm run stripe:setup       creates or updates the programs' and coached offers' products and prices (by lookup key)
 *   npm run stripe:setup -- --archive   also archives the programs' other active prices (once the
 *                              functions with the new catalogue are deployed; stripe-setup.ts says why)
 *   npm run stripe:reconcile   records paid Checkout Sessions the database lacks (after a webhook outage)
 *   npm run stripe:dispute -- <du_…> [--submit]   prints the evidence the product holds for a
 *                              disputed payment and, with --submit, sends it to Stripe (docs/operations.md, "Disputes")
 * Setup and reconcile are idempotent: a second run changes nothing. Reconcile also needs SUPABASE_URL and
 * SUPABASE_SERVICE_ROLE_KEY (dispute too); `--days N` sets its window (default 30). With RESEND_API_KEY,
 * MAIL_FROM and SITE_URL set it also sends the order e-mails a mail outage left queued.
 * STRIPE_API_URL aims the library at another API host, such as the local stack's Stripe stand-in
 * (packages/local-stack/README.md, "The Stripe stand-in").
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { load } from "js-yaml";
import { CATALOGUE, COACHED_OFFERS } from "../functions/_shared/catalogue.ts";
import { type BuyerActivity, disputeEvidence } from "../functions/_shared/dispute-evidence.ts";
import { orderReference } from "../functions/_shared/order-reference.ts";
import { formatCents } from "../packages/shared/money.ts";
import { ConfigError } from "../functions/_shared/env.ts";
import { stripeClient } from "../functions/_shared/stripe.ts";
import { setupCatalogue, setupOffers } from "../functions/_shared/stripe-setup.ts";
import { adminClient } from "../functions/_shared/supabase-admin.ts";
import { reconcile } from "../functions/stripe-webhook/reconcile.ts";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    days: { type: "string", default: "30" },
    archive: { type: "boolean", default: false },
    submit: { type: "boolean", default: false },
  },
});
const command = positionals[0];

try {
  const stripe = stripeClient(process.env);
  const mode = process.env.STRIPE_API_URL ? ` at ${process.env.STRIPE_API_URL}` : "";
  if (command === "setup") {
    const changes = [
      ...(await setupCatalogue(stripe, CATALOGUE, { archive: values.archive })),
      ...(await setupOffers(stripe, COACHED_OFFERS, CATALOGUE, { archive: values.archive })),
    ];
    for (const { key, change, id } of changes) console.log(`${key}: ${change} ${id}`);
    console.log(
      changes.length === 0
        ? `Stripe${mode} already sells the catalogue: nothing changed.`
        : `Done: ${changes.length} change(s).`,
    );
    if (changes.some((c) => c.change === "replaced price")) {
      console.log(
        "The previous prices stay active for the functions deployed now; once the functions with this catalogue are deployed, run: npm run stripe:setup -- --archive",
      );
    }
  } else if (command === "reconcile") {
    const days = Number(values.days);
    if (!(days > 0)) throw new ConfigError(`--days must be a positive number, got "${values.days}"`);
    const mail = process.env.RESEND_API_KEY?.trim() ? process.env : undefined;
    const report = await reconcile({ stripe, admin: adminClient(process.env), mail }, { days });
    console.log(
      `Checked ${report.checked} completed Checkout Session(s) of the last ${days} day(s); recorded ${report.recorded.length}.`,
    );
    for (const id of report.recorded) console.log(`  recorded ${id}`);
    for (const id of report.held)
      console.log(`  held for review ${id}: not paid at the program's price (public.stripe_payment_reviews)`);
    const { emails } = report;
    console.log(
      emails
        ? `Order e-mails: ${emails.sent} sent, ${emails.queued} still queued, ${emails.failed} given up.`
        : "Order e-mails: not sent (set RESEND_API_KEY, MAIL_FROM and SITE_URL to send the queued ones).",
    );
  } else if (command === "dispute") {
    await answerDispute(stripe, positionals[1] ?? "", values.submit);
  } else {
    console.error(
      "Usage: node scripts/stripe.ts setup [--archive] | reconcile [--days 30] | dispute <du_…> [--submit]",
    );
    process.exit(2);
  }
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}

/** The content a dispute's evidence quotes: the site's address and the checkout's refund policy. */
function contentFacts(): { siteUrl: string; refundPolicy: string } {
  const root = join(import.meta.dirname, "..");
  const read = (file: string) => load(readFileSync(join(root, "content", file), "utf8")) as Record<string, unknown>;
  const site = (read("site.yaml").site ?? {}) as { url?: string };
  const checkout = read("pages/checkout.yaml") as { program?: { refundPolicy?: { text?: string } } };
  const refundPolicy = checkout.program?.refundPolicy?.text;
  if (!site.url || !refundPolicy)
    throw new ConfigError("content/site.yaml site.url and content/pages/checkout.yaml program.refundPolicy are needed");
  return { siteUrl: process.env.SITE_URL?.trim() || site.url, refundPolicy };
}

/**
 * Prints the evidence for dispute `id` from the order and the buyer's activity; with `submit`,
 * sends it to Stripe's dispute evidence API (which submits it to the bank) and records when.
 */
async function answerDispute(stripe: ReturnType<typeof stripeClient>, id: string, submit: boolean): Promise<void> {
  if (!/^(du|dp)_[A-Za-z0-9]+$/.test(id)) throw new ConfigError(`Give the dispute's id (du_…), got "${id}"`);
  const dispute = await stripe.disputes.retrieve(id);
  const paymentIntent =
    typeof dispute.payment_intent === "string" ? dispute.payment_intent : dispute.payment_intent?.id;
  const admin = adminClient(process.env);
  const { data: order, error } = await admin
    .from("stripe_orders")
    .select("checkout_session_id")
    .eq("payment_intent_id", paymentIntent ?? "")
    .maybeSingle();
  if (error) throw new Error(`Reading the order failed: ${error.message}`);
  if (!order)
    throw new ConfigError(`Dispute ${id} is about ${paymentIntent ?? "no payment"}, which no order of this site has.`);
  const sessionId = (order as { checkout_session_id: string }).checkout_session_id;
  const activity = await admin.rpc("dispute_evidence", { p_checkout_session_id: sessionId });
  if (activity.error || !activity.data)
    throw new Error(`Reading the buyer's activity failed: ${activity.error?.message}`);
  const buyer = activity.data as BuyerActivity;
  const product = CATALOGUE.find((p) => p.key === buyer.product_key);
  const { siteUrl, refundPolicy } = contentFacts();
  const evidence = disputeEvidence(buyer, {
    program: { name: product?.name ?? buyer.product_key, description: product?.description ?? "" },
    reference: await orderReference(sessionId),
    refundPolicy,
    termsUrl: new URL("/terms-of-service", siteUrl).href,
    portalUrl: new URL("/portal", siteUrl).href,
  });
  console.log(
    `Dispute ${id}: ${dispute.status}, reason ${dispute.reason}, ${formatCents(dispute.amount, dispute.currency)}`,
  );
  for (const [field, value] of Object.entries(evidence)) console.log(`\n${field}:\n${value}`);
  if (!submit) {
    console.log(`\nNothing sent. To send this to Stripe: npm run stripe:dispute -- ${id} --submit`);
    return;
  }
  const updated = await stripe.disputes.update(id, { evidence, submit: true });
  const { error: recorded } = await admin
    .from("stripe_disputes")
    .update({ evidence_submitted_at: new Date().toISOString() })
    .eq("dispute_id", id);
  if (recorded) console.error(`The evidence was sent, but its time was not recorded: ${recorded.message}`);
  console.log(`\nSent to Stripe: the dispute is ${updated.status}.`);
}
