/**
 * After the payment, through the whole local stack on PGlite and PostgreSQL: the real
 * `stripe-checkout`, `checkout-status` and `stripe-webhook` functions, the Stripe stand-in paying
 * on its hosted page and delivering signed events (retried on failure, as Stripe does), and the
 * Resend stand-in keeping every e-mail in the outbox. What a buyer sees and receives: the
 * success page's answer, one access e-mail per purchase (with the set-password link for a new
 * account), one e-mail for a failed bank debit and for a refund, Stripe's receipt, and never two
 * of the same e-mail for one event, whatever the deliveries.
 */
import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { checkoutRequest } from "../../packages/shared/checkout-request.ts";
import { orderReference } from "../../functions/_shared/order-reference.ts";
import { stripeClient } from "../../functions/_shared/stripe.ts";
import { BUSINESS_EMAIL } from "../../functions/_shared/catalogue.ts";
import type { CheckoutStatus } from "../../packages/shared/checkout-status.ts";
import { BACKENDS, startTestStack, type TestStack } from "@advisor-accelerator/local-stack";
import { payOnPage, signEvent, TEST_BANK as BANK, TEST_CARD as CARD } from "../support/stripe-events.ts";
import { LIMITS as STATUS_LIMITS } from "../../functions/checkout-status/handler.ts";
import { getFrom, nextAddress } from "../support/client-address.ts";
import { logTallies, Tally } from "../support/hostile.ts";

const SITE = "http://localhost:4321";
const GROWTH = { checkoutKey: "GROWTH_MINDSET", stripeLookupKey: "growth_mindset" };
const OS = { checkoutKey: "OS_ACCELERATOR", stripeLookupKey: "os_accelerator" };

let serial = 0;
const buyer = (name: string) => `${name}.${Date.now().toString(36)}${serial++}@example.com`;

describe.each(BACKENDS)("after the payment on $name", (backend) => {
  let stack: TestStack;
  let stripe: Stripe;
  const statusFlood = new Tally("checkout-status flood");
  const lookups = new Tally("purchase lookups by e-mail");

  beforeAll(async () => {
    stack = await startTestStack(backend, { seed: false, stripe: { retryDelaysMs: [300, 600, 1_200, 2_400] } });
    stripe = stripeClient({ STRIPE_SECRET_KEY: stack.stripe.secretKey, STRIPE_API_URL: stack.url });
  }, 60_000);
  afterAll(async () => {
    logTallies(statusFlood, lookups);
    await stack?.stop();
  });
  afterEach(() => {
    delete process.env.RESEND_API_KEY;
    delete process.env.RESEND_API_URL;
    delete process.env.STRIPE_SECRET_KEY;
    delete process.env.STRIPE_API_URL;
  });

  /**
   * The checkout page's call to stripe-checkout for `email`: a visitor's (the anon key) or a
   * signed-in customer's (their access token, which the page sends with functions.invoke).
   */
  const startCheckout = (email: string, program = GROWTH, token = stack.anonKey) =>
    fetch(`${stack.url}/functions/v1/stripe-checkout`, {
      method: "POST",
      headers: {
        origin: SITE,
        "content-type": "application/json",
        apikey: stack.anonKey,
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(checkoutRequest(SITE, program, email)),
    });

  /** The checkout page's call, then the hosted page's form, as a browser posts it. */
  async function buy(
    email: string,
    program = GROWTH,
    method: Record<string, string> = CARD,
    /** A signed-in customer's access token (the page sends it with functions.invoke). */
    token = stack.anonKey,
  ): Promise<Stripe.Checkout.Session> {
    const response = await startCheckout(email, program, token);
    expect(response.status, await response.clone().text()).toBe(200);
    const { url } = (await response.json()) as { url: string };
    const session = await stripe.checkout.sessions.retrieve(/cs_test_[A-Za-z0-9]+/.exec(url)![0]);
    expect((await payOnPage(session, method)).status).toBe(303);
    await stack.stripe.idle();
    return session;
  }

  const mailsTo = (email: string) => stack.mail.list().filter((m) => m.to === email);
  const subjects = (email: string) => mailsTo(email).map((m) => m.subject);

  const status = async (sessionId: string) => {
    const response = await fetch(`${stack.url}/functions/v1/checkout-status?session_id=${sessionId}`, {
      headers: { origin: SITE },
    });
    return { code: response.status, body: (await response.json()) as CheckoutStatus & { error?: string } };
  };

  const order = async (sessionId: string) =>
    (
      await stack.db.query<{ status: string; receipt_url: string | null }>(
        "select status::text, receipt_url from public.stripe_orders where checkout_session_id = $1",
        [sessionId],
      )
    ).rows[0];

  const queued = async (sessionId: string) =>
    (
      await stack.db.query<{ kind: string; status: string; attempts: number }>(
        "select kind::text, status, attempts from public.order_emails where checkout_session_id = $1 order by kind",
        [sessionId],
      )
    ).rows;

  it("a new buyer by card: the success page's facts, one access e-mail carrying the set-password link, Stripe's receipt", async () => {
    const email = buyer("new");
    const session = await buy(email);

    const { code, body } = await status(session.id);
    expect(code).toBe(200);
    expect(body).toEqual({
      state: "paid",
      program: { name: "Growth Mindset Mastery", key: "GROWTH_MINDSET", course: "/portal/courses/growth-mindset" },
      amountCents: 30_000,
      currency: "usd",
      email,
      reference: await orderReference(session.id),
      // A self-paced program: no cohort.
      cohortStart: null,
      // Their account is new, never used: the success page keeps the set-password step.
      accountInUse: false,
    });

    const access = mailsTo(email).filter((m) => m.subject.startsWith("You now have"));
    expect(access.map((m) => m.subject)).toEqual(["You now have Growth Mindset Mastery: set your password to start"]);
    expect(access[0]!.text).toContain(`Order: ${body.reference}`);
    // Auth sent nothing of its own: the link is in the access e-mail, one message to act on.
    expect(subjects(email).filter((s) => /set your password/i.test(s))).toHaveLength(1);
    expect(mailsTo(email).filter((m) => /receipt/i.test(m.subject))).toHaveLength(1);

    // The link is Auth's invite: it signs the buyer in.
    const hash = /token_hash=([^&"\s]+)&(amp;)?type=invite/.exec(access[0]!.html)?.[1];
    const client = stack.client();
    const verified = await client.auth.verifyOtp({ token_hash: hash!, type: "invite" });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email).toBe(email);
    // The name given on Stripe's page (the cardholder's, TEST_CARD) is the new account's name.
    const { data: profile } = await client.from("profiles").select("full_name").maybeSingle();
    expect(profile).toEqual({ full_name: "Ada Buyer" });

    // Purchase history's columns: the same reference, and Stripe's receipt.
    expect((await order(session.id))?.receipt_url).toMatch(/^http/);
    const { data: rows } = await client.from("stripe_user_orders").select("order_reference, receipt_url");
    expect(rows).toEqual([{ order_reference: body.reference, receipt_url: (await order(session.id))!.receipt_url }]);
  });

  it("a returning customer's second purchase: one access e-mail, no set-password link; the owned program is refused", async () => {
    const email = buyer("returning");
    const first = await buy(email);
    const hash = /token_hash=([^&"\s]+)/.exec(mailsTo(email).find((m) => m.subject.startsWith("You now have"))!.html);
    const signedIn = await stack.client().auth.verifyOtp({ token_hash: hash![1]!, type: "invite" });
    expect(signedIn.error).toBeNull();

    const second = await buy(email, OS, CARD, signedIn.data.session!.access_token);
    // The success page asks no password of them: their account is in use (and now the first
    // order's page says so too, as the account is the same).
    expect((await status(second.id)).body).toMatchObject({ state: "paid", email, accountInUse: true });
    expect((await status(first.id)).body.accountInUse).toBe(true);
    const os = mailsTo(email).filter((m) => m.subject.startsWith("You now have Advisor OS Accelerator"));
    expect(os.map((m) => m.subject)).toEqual(["You now have Advisor OS Accelerator"]);
    expect(os[0]!.html).not.toContain("reset-password");
    expect(os[0]!.html).toContain(`href="${SITE}/portal/courses/os-accelerator"`);

    // A second Growth Mindset: refused before anything is made at Stripe, signed in or not.
    const before = (await stripe.checkout.sessions.list({ limit: 100 })).data.length;
    // Its signed-in owner is told they own it.
    const owner = await startCheckout(email.toUpperCase(), GROWTH, signedIn.data.session!.access_token);
    expect(owner.status).toBe(409);
    expect(await owner.json()).toMatchObject({ code: "already_owned", error: expect.stringMatching(/already own/) });
    expect(owner.headers.get("access-control-allow-origin")).toBe(SITE);
    // Anyone else typing the address learns that it has an account, and nothing of what it bought.
    const visitor = await startCheckout(email.toUpperCase());
    expect(visitor.status).toBe(409);
    const told = (await visitor.json()) as { code: string; error: string };
    lookups.count(told.code !== "sign_in_required");
    expect(told).toEqual({
      code: "sign_in_required",
      error: `${email} already has an account. Sign in to continue.`,
    });
    expect(told.error).not.toMatch(/Growth|own|clearing/i);
    expect((await stripe.checkout.sessions.list({ limit: 100 })).data.length).toBe(before);
    expect(first.id).toBeTruthy();
  });

  it("a bank debit: processing (no access e-mail, a second checkout refused), then paid with one access e-mail", async () => {
    const email = buyer("bank");
    const session = await buy(email, GROWTH, BANK);
    // Not paid yet: nothing said of the buyer's account.
    expect((await status(session.id)).body).toMatchObject({ state: "processing", accountInUse: null });
    expect(subjects(email).filter((s) => s.startsWith("You now have"))).toEqual([]);
    // Signed out, the address reveals an account, not a payment on its way.
    const again = await startCheckout(email);
    expect(again.status).toBe(409);
    const said = (await again.json()) as { code: string };
    lookups.count(said.code !== "sign_in_required");
    expect(said).toMatchObject({ code: "sign_in_required" });
    // Its owner, signed in, is told the payment is clearing.
    const link = await stack.admin().auth.admin.generateLink({ type: "recovery", email });
    const owner = await stack
      .client()
      .auth.verifyOtp({ token_hash: link.data.properties!.hashed_token, type: "recovery" });
    const mine = await startCheckout(email, GROWTH, owner.data.session!.access_token);
    expect(mine.status).toBe(409);
    expect(await mine.json()).toMatchObject({ code: "payment_processing" });

    stack.stripe.settle(session.id);
    await stack.stripe.idle();
    expect((await status(session.id)).body.state).toBe("paid");
    expect(subjects(email).filter((s) => s.startsWith("You now have"))).toHaveLength(1);
    expect(mailsTo(email).filter((m) => /receipt/i.test(m.subject))).toHaveLength(1);
    expect((await order(session.id))?.status).toBe("completed");
  });

  it("a bank debit that fails: the success page says failed, one e-mail says so, no access", async () => {
    const email = buyer("bounced");
    const session = await buy(email, GROWTH, BANK);
    stack.stripe.fail(session.id);
    await stack.stripe.idle();
    expect((await status(session.id)).body.state).toBe("failed");
    expect(subjects(email).filter((s) => !/receipt/i.test(s))).toEqual([
      "Your payment for Growth Mindset Mastery did not go through",
    ]);
    expect((await order(session.id))?.status).toBe("failed");
  });

  it("a refund: one e-mail about it, access ended, the order refunded", async () => {
    const email = buyer("refund");
    const session = await buy(email, OS);
    const { payment_intent } = await stripe.checkout.sessions.retrieve(session.id);
    await stripe.refunds.create({ payment_intent: payment_intent as string });
    await stack.stripe.idle();
    const refund = mailsTo(email).filter((m) => m.subject === "Your refund for Advisor OS Accelerator");
    expect(refund).toHaveLength(1);
    expect(refund[0]!.text).toContain("Amount refunded: $2,999\n");
    expect((await order(session.id))?.status).toBe("refunded");
  });

  it("a refund the card cannot take (Stripe's 4000 0000 0000 5126): held for review with its reason, the order as the refund left it", async () => {
    const email = buyer("refund-fails");
    const session = await buy(email, OS, { ...CARD, card_number: "4000 0000 0000 5126" });
    const { payment_intent } = await stripe.checkout.sessions.retrieve(session.id);
    await stripe.refunds.create({ payment_intent: payment_intent as string });
    // Created as succeeded, it fails a few seconds later: refund.failed (and the updates).
    await stack.stripe.idle();
    const { rows } = await stack.db.query<{ event_type: string; amount_total: string; reason: string; email: string }>(
      "select event_type, amount_total::text, reason, email from public.stripe_payment_reviews where checkout_session_id = $1",
      [session.id],
    );
    expect(rows).toEqual([
      {
        event_type: "refund.failed",
        amount_total: "299900",
        email,
        reason: expect.stringMatching(
          /^the refund re_\w+ of 299900 usd failed \(\w+\); the buyer has not been paid back$/,
        ),
      },
    ]);
    expect((await order(session.id))?.status).toBe("refunded");
    // Still one e-mail about the refund to the buyer: the failure is for the business to settle,
    // and it is told.
    expect(mailsTo(email).filter((m) => m.subject === "Your refund for Advisor OS Accelerator")).toHaveLength(1);
    const told = mailsTo(BUSINESS_EMAIL).filter((m) => m.text.includes(session.id));
    expect(told.map((m) => m.subject)).toEqual([`Refund failed: Advisor OS Accelerator, ${email}`]);
    expect(told[0]!.text).toContain("Stripe could not return $2,999 to");
  });

  it("the same events delivered again, 20 at once, and the reconcile's: still one e-mail of each kind", async () => {
    const email = buyer("dup");
    const session = await buy(email);
    const { data: events } = await stripe.events.list({ type: "checkout.session.completed", limit: 100 });
    const completed = events.find((e) => (e.data.object as { id: string }).id === session.id)!;
    const deliveries = await Promise.all(
      Array.from({ length: 20 }, () => signEvent(completed, stack.stripe.webhookSecret)),
    );
    const answers = await Promise.all(
      deliveries.map(({ payload, signature }) =>
        fetch(`${stack.url}/functions/v1/stripe-webhook`, {
          method: "POST",
          headers: { "stripe-signature": signature, "content-type": "application/json" },
          body: payload,
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    // The same purchase as a different event (what `npm run stripe:reconcile` records).
    const other = { ...completed, id: `evt_reconcile_${session.id}_paid` };
    const { payload, signature } = await signEvent(other, stack.stripe.webhookSecret);
    await fetch(`${stack.url}/functions/v1/stripe-webhook`, {
      method: "POST",
      headers: { "stripe-signature": signature },
      body: payload,
    });
    expect(subjects(email).filter((s) => s.startsWith("You now have"))).toHaveLength(1);
    expect(await queued(session.id)).toEqual([{ kind: "access", status: "sent", attempts: 1 }]);
  });

  it("a mail outage loses nothing: the order is recorded, the e-mail waits, and Stripe's redelivery sends it once", async () => {
    const email = buyer("outage");
    // The functions' mail provider unreachable (a closed port), as during a provider outage.
    process.env.RESEND_API_KEY = "re_outage_test";
    process.env.RESEND_API_URL = "http://127.0.0.1:9";
    const response = await startCheckout(email);
    const { url } = (await response.json()) as { url: string };
    const session = await stripe.checkout.sessions.retrieve(/cs_test_[A-Za-z0-9]+/.exec(url)![0]);
    await payOnPage(session, CARD);
    // The first delivery records the order and fails for the e-mail.
    await expect.poll(async () => (await order(session.id))?.status, { timeout: 10_000 }).toBe("completed");
    await expect.poll(async () => (await queued(session.id))[0]?.attempts, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(subjects(email).filter((s) => s.startsWith("You now have"))).toEqual([]);

    // The provider is back; Stripe's next attempt sends it.
    delete process.env.RESEND_API_KEY;
    delete process.env.RESEND_API_URL;
    await stack.stripe.idle();
    await expect
      .poll(() => subjects(email).filter((s) => s.startsWith("You now have")).length, { timeout: 15_000 })
      .toBe(1);
    expect((await queued(session.id))[0]).toMatchObject({ kind: "access", status: "sent" });
  });

  it("checkout-status says nothing of an account for a session the webhook has not recorded", async () => {
    // A returning customer's address, checked out by them signed in but not paid: Stripe's answer,
    // which names no account, whoever's address it carries.
    const email = buyer("unrecorded");
    await buy(email);
    const link = await stack.admin().auth.admin.generateLink({ type: "recovery", email });
    const owner = await stack
      .client()
      .auth.verifyOtp({ token_hash: link.data.properties!.hashed_token, type: "recovery" });
    const response = await startCheckout(email, OS, owner.data.session!.access_token);
    const { url } = (await response.json()) as { url: string };
    const open = await status(/cs_test_[A-Za-z0-9]+/.exec(url)![0]);
    expect(open.code).toBe(200);
    expect(open.body).toMatchObject({ state: "open", accountInUse: null });
  });

  it("checkout-status answers only a well-formed id of this site's sessions, and nothing else", async () => {
    expect((await status("not-a-session")).code).toBe(400);
    expect((await status("cs_test_doesnotexist0000")).code).toBe(404);
    // A session at the same Stripe account that is not a checkout of this site (no program key).
    const { data: prices } = await stripe.prices.list({ lookup_keys: ["growth_mindset"], limit: 1 });
    const foreign = await stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [{ price: prices[0]!.id, quantity: 1 }],
      success_url: `${SITE}/x`,
    });
    expect((await status(foreign.id)).code).toBe(404);
    const post = await fetch(`${stack.url}/functions/v1/checkout-status?session_id=${foreign.id}`, { method: "POST" });
    expect(post.status).toBe(405);
  });

  it("checkout-status answers a recorded order from the database: Stripe unreachable, the buyer still reads it", async () => {
    const email = buyer("recorded");
    const session = await buy(email);
    await expect.poll(async () => (await order(session.id))?.status, { timeout: 10_000 }).toBe("completed");
    // Stripe unreachable (a closed port) for the functions, as in an outage: the database answers.
    process.env.STRIPE_SECRET_KEY = "sk_test_outage";
    process.env.STRIPE_API_URL = "http://127.0.0.1:9";
    const known = await status(session.id);
    expect(known.code).toBe(200);
    expect(known.body).toMatchObject({
      state: "paid",
      program: { key: "GROWTH_MINDSET", name: "Growth Mindset Mastery" },
      amountCents: 30000,
      email,
      reference: await orderReference(session.id),
    });
    // A session the database does not know is asked of Stripe, which cannot answer now.
    expect((await status("cs_test_a1notrecordedyet000")).code).toBe(502);
  });

  it("checkout-status refuses an id that is not a Checkout Session's before asking anyone", async () => {
    process.env.STRIPE_SECRET_KEY = "sk_test_outage";
    process.env.STRIPE_API_URL = "http://127.0.0.1:9";
    // Stripe's ids are cs_test_ or cs_live_ and letters and digits: anything else is a 400, not a 502.
    for (const id of [
      "cs_x_a1b2c3d4e5f6",
      "cs_test_a1b2c3d4'--",
      "pi_test_a1b2c3d4e5f6",
      "cs_test_",
      "cs_live_a1b2_c3d4e5",
    ])
      expect((await status(id)).code, id).toBe(400);
  });

  it("a status flood from one address reaches Stripe only as far as LIMITS allow; the rest get 429 with Retry-After", async () => {
    const made = (n: number) =>
      `${stack.url}/functions/v1/checkout-status?session_id=cs_test_a1madeup${String(n).padStart(8, "0")}`;
    // 100 at once (the red team's 109 a second): the ceiling everyone shares lets a second's worth through.
    const started = Date.now();
    const burst = await Promise.all(Array.from({ length: 100 }, (_, i) => getFrom(made(i), nextAddress())));
    const through = burst.filter((a) => a.status !== 429).length;
    expect(through).toBeGreaterThan(0);
    // One-second windows that never overlap, each starting at a hit (rate_limit_hit): a burst that
    // lasts up to n seconds touches at most n + 1 of them, however slowly the machine answers it.
    const allowed = STATUS_LIMITS.everyone.hits * (Math.ceil((Date.now() - started) / 1000) + 1);
    expect(through).toBeLessThanOrEqual(allowed);
    // Tallied as tries past what the limits let through.
    for (let i = 0; i < burst.length; i++) statusFlood.count(i < through - allowed);
    for (const answer of burst.filter((a) => a.status === 429))
      expect(Number(answer.headers["retry-after"])).toBeGreaterThan(0);
    // One address, paced under the shared ceiling: its own hourly allowance, then 429 for an hour.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const address = nextAddress();
    for (let i = 0; i < STATUS_LIMITS.address.hits; i++) {
      expect((await getFrom(made(200 + i), address)).status).toBe(404);
      await new Promise((resolve) => setTimeout(resolve, 1_000 / STATUS_LIMITS.everyone.hits + 25));
    }
    const refused = await getFrom(made(300), address);
    statusFlood.count(refused.status !== 429);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(60);
    // Another visitor is not held back by this one.
    expect((await getFrom(made(301), nextAddress())).status).toBe(404);
  }, 30_000);
});
