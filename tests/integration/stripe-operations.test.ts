/**
 * The operator's Stripe commands against the local stack's stand-in, with the real `stripe`
 * library: `npm run stripe:setup` (functions/_shared/stripe-setup.ts) across a price change's deploy, and
 * `npm run stripe:reconcile` (functions/stripe-webhook/reconcile.ts) after a webhook outage.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { join } from "node:path";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CATALOGUE } from "../../functions/_shared/catalogue.ts";
import { checkoutRequest } from "../../packages/shared/checkout-request.ts";
import { stripeClient } from "../../functions/_shared/stripe.ts";
import { setupCatalogue } from "../../functions/_shared/stripe-setup.ts";
import { priceOf } from "../../functions/stripe-checkout/handler.ts";
import { reconcile } from "../../functions/stripe-webhook/reconcile.ts";
import { startTestStack, type TestStack } from "@advisor-accelerator/local-stack";

const SITE = "http://localhost:4321";
const root = join(import.meta.dirname, "../..");

describe("stripe:setup and stripe:reconcile", () => {
  let stack: TestStack;
  let stripe: Stripe;

  /** A paid (or bank-pending) checkout made by the real checkout function, paid on the hosted page. */
  async function buy(email: string, method: "card" | "bank") {
    const response = await fetch(`${stack.url}/functions/v1/stripe-checkout`, {
      method: "POST",
      headers: { origin: SITE, "content-type": "application/json", authorization: `Bearer ${stack.anonKey}` },
      body: JSON.stringify(
        checkoutRequest(SITE, { checkoutKey: "GROWTH_MINDSET", stripeLookupKey: "growth_mindset" }, email),
      ),
    });
    const { url } = (await response.json()) as { url: string };
    const fields: Record<string, string> =
      method === "card"
        ? { method: "card", card_number: "4242 4242 4242 4242", expiry: "12 / 34", cvc: "123", name: "Ada Buyer" }
        : {
            method: "us_bank_account",
            account_holder: "Ada Buyer",
            routing_number: "110000000",
            account_number: "000123456789",
          };
    const paid = await fetch(url, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    });
    expect(paid.status).toBe(303);
    return /cs_test_[A-Za-z0-9]+/.exec(url)![0];
  }
  const order = async (sessionId: string) =>
    (
      await stack.db.query<{ status: string }>(
        "select status::text from public.stripe_orders where checkout_session_id = $1",
        [sessionId],
      )
    ).rows;

  beforeAll(async () => {
    // The webhook is down: every delivery fails, and the next retry is far away.
    stack = await startTestStack(
      { name: "PGlite" },
      { seed: false, stripe: { webhookUrl: "http://127.0.0.1:9/down", retryDelaysMs: [3_600_000], timeoutMs: 1_000 } },
    );
    stripe = stripeClient({ STRIPE_SECRET_KEY: stack.stripe.secretKey, STRIPE_API_URL: stack.url });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it("setup during a price change: the new price takes the lookup key, the old one keeps selling until --archive; each run is idempotent", async () => {
    const os = CATALOGUE.find((p) => p.key === "OS_ACCELERATOR")!;
    const raised = CATALOGUE.map((p) => (p === os ? { ...p, priceCents: p.priceCents + 10_000 } : p));
    const raisedOs = raised.find((p) => p.key === "OS_ACCELERATOR")!;
    const before = (await stripe.prices.list({ lookup_keys: [os.lookupKey] })).data[0]!;
    // Each call its own cache entry, as a freshly started function instance.
    let instance = 0;
    const sellingPrice = (product: typeof os) => priceOf(stripe, product, `instance-${++instance}`);

    // 1. stripe:setup with the new catalogue, before the functions are deployed.
    const changes = await setupCatalogue(stripe, raised);
    expect(changes).toEqual([
      { key: "OS_ACCELERATOR", change: "replaced price", id: expect.stringMatching(/^price_/) },
    ]);
    const after = (await stripe.prices.list({ lookup_keys: [os.lookupKey] })).data[0]!;
    expect(after.unit_amount).toBe(raisedOs.priceCents);
    expect(await setupCatalogue(stripe, raised)).toEqual([]);
    // The functions still deployed sell the old amount; the ones being deployed, the new.
    expect((await sellingPrice(os)).id).toBe(before.id);
    expect((await sellingPrice(raisedOs)).id).toBe(after.id);

    // 2. After the functions' deploy: --archive retires the old price, once.
    expect(await setupCatalogue(stripe, raised, { archive: true })).toEqual([
      { key: "OS_ACCELERATOR", change: "archived price", id: before.id },
    ]);
    expect(await setupCatalogue(stripe, raised, { archive: true })).toEqual([]);
    expect((await stripe.prices.retrieve(before.id)).active).toBe(false);
    // An amount the catalogue does not name is never charged.
    await expect(sellingPrice(os)).rejects.toThrow(`the catalogue says ${os.priceCents} usd: run npm run stripe:setup`);

    // And back, as the catalogue says.
    expect((await setupCatalogue(stripe, CATALOGUE, { archive: true })).map((c) => c.change)).toEqual([
      "replaced price",
      "archived price",
    ]);
    expect((await sellingPrice(os)).unit_amount).toBe(os.priceCents);
  });

  it("the command: `npm run stripe:setup` reports that the account already sells the catalogue", async () => {
    // Asynchronously: the stack answering the command runs in this process.
    const run = await promisify(execFile)(process.execPath, ["scripts/stripe.ts", "setup"], {
      cwd: root,
      env: { ...process.env, STRIPE_SECRET_KEY: stack.stripe.secretKey, STRIPE_API_URL: stack.url },
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain(`Stripe at ${stack.url} already sells the catalogue: nothing changed.`);
  });

  it("reconcile: records the purchases an outage kept from the webhook, through its code path, and sends their e-mails; a second run changes nothing", async () => {
    const card = await buy("outage-card@example.com", "card");
    const bank = await buy("outage-bank@example.com", "bank");
    expect(await order(card)).toEqual([]);
    const mail = {
      SITE_URL: "http://localhost:4321",
      RESEND_API_KEY: stack.resend.apiKey,
      RESEND_API_URL: stack.resend.apiUrl,
      MAIL_FROM: "Advisor Accelerator <team@advisor-accelerator.local>",
    };
    const deps = { stripe, admin: stack.admin(), log: () => {}, mail };
    // The access e-mails (Stripe's receipts go to the same addresses, from the stand-in).
    const access = () =>
      stack.mail
        .list()
        .filter((m) => m.to.startsWith("outage-") && m.subject.startsWith("You now have"))
        .map((m) => m.to)
        .sort();

    const first = await reconcile(deps);
    expect(first.recorded.sort()).toEqual([card, bank].sort());
    expect(first.emails).toEqual({ sent: 1, queued: 0, failed: 0 });
    expect(await order(card)).toEqual([{ status: "completed" }]);
    expect(await order(bank)).toEqual([{ status: "pending" }]);
    expect(access()).toEqual(["outage-card@example.com"]);

    expect(await reconcile(deps)).toMatchObject({ recorded: [], emails: { sent: 0, queued: 0, failed: 0 } });

    // The bank debit settles while the webhook is still down: the next run completes the order.
    stack.stripe.settle(bank);
    expect((await reconcile(deps)).recorded).toEqual([bank]);
    expect(await order(bank)).toEqual([{ status: "completed" }]);
    expect((await reconcile(deps)).recorded).toEqual([]);
    expect(access()).toEqual(["outage-bank@example.com", "outage-card@example.com"]);
  });
});
