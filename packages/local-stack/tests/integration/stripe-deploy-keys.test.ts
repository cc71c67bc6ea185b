/**
 * DEPLOY.md's restricted key for the functions, rehearsed on the local stack: the product's
 * `stripe-checkout`, `checkout-status` and `stripe-webhook` run with "Advisor Accelerator
 * functions" (Checkout Sessions and Customers Write; Prices, PaymentIntents and Charges Read) as
 * their STRIPE_SECRET_KEY, against the Stripe stand-in, which holds a restricted key to its
 * permissions as Stripe does (packages/local-stack/src/stripe/permissions.ts; the rules are pinned
 * in ./stripe.test.ts, "restricted keys"). A purchase by card, its success page, the order with
 * its receipt, a bank debit settled and a refund all work with that key; a key short of one of its
 * permissions gets Stripe's refusal where the product needs it. The stand-in keeps its state in
 * files, so one backend (PGlite) suffices.
 */
import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { stripeClient } from "../../../../functions/_shared/stripe.ts";
import { checkoutRequest } from "../../../../packages/shared/checkout-request.ts";
import type { CheckoutStatus } from "../../../../packages/shared/checkout-status.ts";
import { startTestStack, type TestStack } from "../../src/harness.ts";
import { DEPLOY_KEYS, type Permissions } from "../../src/stripe/index.ts";
import { payOnPage, TEST_BANK as BANK, TEST_CARD as CARD } from "../../../../tests/support/stripe-events.ts";

const SITE = "http://localhost:4321";
const GROWTH = { checkoutKey: "GROWTH_MINDSET", stripeLookupKey: "growth_mindset" };

let serial = 0;
const buyer = (name: string) => `${name}.${Date.now().toString(36)}${serial++}@example.com`;

describe("DEPLOY.md's restricted key for the functions, against the Stripe stand-in", () => {
  let stack: TestStack;
  /** The functions' secrets: read on every call, so a test can give them another key. */
  const secrets: Record<string, string> = {};
  /** The full secret key, for what the test itself reads. */
  let stripe: Stripe;

  beforeAll(async () => {
    stack = await startTestStack({ name: "PGlite" }, { seed: false, secrets, stripe: { retryDelaysMs: [300, 600] } });
    stripe = stripeClient({ STRIPE_SECRET_KEY: stack.stripe.secretKey, STRIPE_API_URL: stack.url });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** The checkout page's call to `stripe-checkout`. */
  const checkout = (email: string) =>
    fetch(`${stack.url}/functions/v1/stripe-checkout`, {
      method: "POST",
      headers: { origin: SITE, "content-type": "application/json", apikey: stack.anonKey },
      body: JSON.stringify(checkoutRequest(SITE, GROWTH, email)),
    });

  /** Checkout, then the hosted page's form; the session, once its events are delivered. */
  async function buy(email: string, method: Record<string, string> = CARD): Promise<Stripe.Checkout.Session> {
    const response = await checkout(email);
    expect(response.status, await response.clone().text()).toBe(200);
    const { url } = (await response.json()) as { url: string };
    const session = await stripe.checkout.sessions.retrieve(/cs_test_[A-Za-z0-9]+/.exec(url)![0]);
    expect((await payOnPage(session, method)).status).toBe(303);
    await stack.stripe.idle();
    return session;
  }

  const status = async (sessionId: string) => {
    const response = await fetch(`${stack.url}/functions/v1/checkout-status?session_id=${sessionId}`, {
      headers: { origin: SITE },
    });
    return { code: response.status, body: (await response.json()) as CheckoutStatus };
  };

  const order = async (sessionId: string) =>
    (
      await stack.db.query<{ status: string; receipt_url: string | null }>(
        "select status::text, receipt_url from public.stripe_orders where checkout_session_id = $1",
        [sessionId],
      )
    ).rows[0];

  /** A restricted key with DEPLOY.md's permissions but `resource` at `access` (or None). */
  const without = (resource: keyof typeof DEPLOY_KEYS.functions.permissions, access?: "read") => {
    const permissions: Permissions = { ...DEPLOY_KEYS.functions.permissions };
    if (access) permissions[resource] = access;
    else delete permissions[resource];
    return stack.stripe.restrictedKey(permissions);
  };

  it("is enough for the whole purchase: checkout, success page, the order with its receipt, a bank debit settled, a refund", async () => {
    secrets.STRIPE_SECRET_KEY = stack.stripe.functionsKey;
    // The key the functions hold is restricted: what DEPLOY.md leaves out is refused.
    const functionsKey = stripeClient({ STRIPE_SECRET_KEY: stack.stripe.functionsKey, STRIPE_API_URL: stack.url });
    expect(await functionsKey.products.create({ name: "Not ours" }).catch((e: unknown) => e)).toBeInstanceOf(
      Stripe.errors.StripePermissionError,
    );

    const email = buyer("deploy-key");
    const card = await buy(email);
    expect(await status(card.id)).toMatchObject({ code: 200, body: { state: "paid", email } });
    // The receipt link is read with Charges Read (an expanded latest_charge).
    expect(await order(card.id)).toEqual({ status: "completed", receipt_url: expect.stringMatching(/^http/) });

    const bank = await buy(buyer("deploy-key-bank"), BANK);
    expect((await status(bank.id)).body.state).toBe("processing");
    stack.stripe.settle(bank.id);
    await stack.stripe.idle();
    expect((await status(bank.id)).body.state).toBe("paid");
    expect((await order(bank.id))?.status).toBe("completed");

    stack.stripe.refund(card.id);
    await stack.stripe.idle();
    expect((await order(card.id))?.status).toBe("refunded");
    // Every event was taken at its first try: nothing the webhook read was refused.
    const failed = stack.stripe.deliveries().filter((d) => d.attempts.some((a) => a.status !== 200));
    expect(failed).toEqual([]);
  });

  it("without Customers Write, the checkout gets Stripe's refusal and makes no session", async () => {
    const key = without("Customers", "read");
    secrets.STRIPE_SECRET_KEY = key;
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const before = (await stripe.checkout.sessions.list({ limit: 100 })).data.length;
    const response = await checkout(buyer("no-customer-write"));
    expect(response.status).toBe(502);
    const refusal = logged.mock.calls.flat().find((arg) => arg instanceof Stripe.errors.StripePermissionError) as
      Stripe.errors.StripePermissionError | undefined;
    expect(refusal).toMatchObject({ statusCode: 403, code: "more_permissions_required" });
    expect(refusal!.message).toContain("Enabling Customers Write ('customer_write') permissions on this key");
    expect((await stripe.checkout.sessions.list({ limit: 100 })).data.length).toBe(before);
  });

  it("without Charges Read, the webhook records the order but cannot keep its receipt link", async () => {
    secrets.STRIPE_SECRET_KEY = stack.stripe.functionsKey;
    const email = buyer("no-charge-read");
    const response = await checkout(email);
    const { url } = (await response.json()) as { url: string };
    const session = await stripe.checkout.sessions.retrieve(/cs_test_[A-Za-z0-9]+/.exec(url)![0]);
    secrets.STRIPE_SECRET_KEY = without("Charges");
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect((await payOnPage(session, CARD)).status).toBe(303);
    await stack.stripe.idle();
    expect(await order(session.id)).toEqual({ status: "completed", receipt_url: null });
    expect(warned.mock.calls.flat().join("\n")).toContain(
      "Enabling Charges Read ('charge_read') permissions on this key would allow this request to continue.",
    );
  });
});
