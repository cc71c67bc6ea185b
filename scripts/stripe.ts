/**
 * Stripe operations on the account STRIPE_SECRET_KEY names:
 *   npm run stripe:setup       creates or updates the programs' products and prices (by lookup key)
 *   npm run stripe:setup -- --archive   also archives the programs' other active prices (once the
 *                              functions with the new catalogue are deployed; stripe-setup.ts says why)
 *   npm run stripe:reconcile   records paid Checkout Sessions the database lacks (after a webhook outage)
 * Both are idempotent: a second run changes nothing. Reconcile also needs SUPABASE_URL and
 * SUPABASE_SERVICE_ROLE_KEY; `--days N` sets its window (default 30). With RESEND_API_KEY,
 * MAIL_FROM and SITE_URL set it also sends the order e-mails a mail outage left queued.
 * STRIPE_API_URL aims the library at another API host, such as the local stack's Stripe stand-in
 * (packages/local-stack/README.md, "The Stripe stand-in").
 */
import { parseArgs } from "node:util";
import { CATALOGUE } from "../functions/_shared/catalogue.ts";
import { ConfigError } from "../functions/_shared/env.ts";
import { stripeClient } from "../functions/_shared/stripe.ts";
import { setupCatalogue } from "../functions/_shared/stripe-setup.ts";
import { adminClient } from "../functions/_shared/supabase-admin.ts";
import { reconcile } from "../functions/stripe-webhook/reconcile.ts";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { days: { type: "string", default: "30" }, archive: { type: "boolean", default: false } },
});
const command = positionals[0];

try {
  const stripe = stripeClient(process.env);
  const mode = process.env.STRIPE_API_URL ? ` at ${process.env.STRIPE_API_URL}` : "";
  if (command === "setup") {
    const changes = await setupCatalogue(stripe, CATALOGUE, { archive: values.archive });
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
  } else {
    console.error("Usage: node scripts/stripe.ts setup [--archive] | reconcile [--days 30]");
    process.exit(2);
  }
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
