/**
 * functions/stripe-webhook through the local stack, on PGlite and PostgreSQL: what a delivery
 * may and may not change. Events are built and signed here exactly as Stripe signs them (the
 * real `stripe` library's test-header helper, with the stand-in's signing secret), so each test
 * controls what arrives and when. Hostile deliveries are counted: tried and accepted.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, startTestStack, type TestStack } from "@advisor-accelerator/local-stack";
import { MAX_BODY_BYTES } from "../../functions/stripe-webhook/handler.ts";
import { stripeClient } from "../../functions/_shared/stripe.ts";
import { BUSINESS_EMAIL, CATALOGUE } from "../../functions/_shared/catalogue.ts";
import { addDays } from "../../packages/shared/cohort.ts";
import {
  checkoutSession as session,
  type Delivery,
  signEvent,
  stripeEvent as event,
  stripeId as id,
} from "../support/stripe-events.ts";
import { logTallies, Tally } from "../support/hostile.ts";

describe.each(BACKENDS)("stripe-webhook on $name", (backend) => {
  let stack: TestStack;
  let secret: string;
  const forged = new Tally("forged or replayed webhooks");
  const oversize = new Tally("oversize bodies");
  const underpaid = new Tally("amount mismatch");

  const sign = (body: unknown, options: { secret?: string; timestamp?: number } = {}) =>
    signEvent(body, options.secret ?? secret, options);
  const deliver = (delivery: Partial<Delivery> & { payload: string }) =>
    fetch(`${stack.url}/functions/v1/stripe-webhook`, {
      method: "POST",
      headers: {
        "content-type": "application/json; charset=utf-8",
        ...(delivery.signature ? { "stripe-signature": delivery.signature } : {}),
      },
      body: delivery.payload,
    });
  /** A hostile delivery, counted in `tally`: accepted when answered 2xx. */
  const attack = async (delivery: Partial<Delivery> & { payload: string }, tally = forged) => {
    const response = await deliver(delivery);
    tally.count(response.ok);
    return response;
  };
  const orders = async (sessionId: string) =>
    (
      await stack.db.query<{ status: string; payment_status: string; product_key: string; attribution: unknown }>(
        "select status::text, payment_status, product_key, attribution from public.stripe_orders where checkout_session_id = $1",
        [sessionId],
      )
    ).rows;
  const users = async (email: string) =>
    (await stack.db.query<{ id: string }>("select id from auth.users where email = $1", [email])).rows;
  const mails = (email: string) => stack.mail.list().filter((m) => m.to === email);
  const anyRowsFor = async (sessionId: string, email: string) =>
    (await orders(sessionId)).length + (await users(email)).length + mails(email).length;

  beforeAll(async () => {
    stack = await startTestStack(backend, { seed: false });
    secret = stack.stripe.webhookSecret;
  }, 60_000);
  afterAll(async () => {
    logTallies(forged, oversize, underpaid);
    await stack?.stop();
  });

  it("records a paid checkout: the order with the program and attribution, the buyer's account, one set-password e-mail", async () => {
    const email = `${id("buyer")}@example.com`;
    const paid = session(email);
    const response = await deliver(await sign(event("checkout.session.completed", paid)));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true, outcome: "recorded" });
    expect(await orders(paid.id)).toEqual([
      {
        status: "completed",
        payment_status: "paid",
        product_key: "GROWTH_MINDSET",
        attribution: { utm_source: "newsletter", landing_page: "/mindset" },
      },
    ]);
    expect(await users(email)).toHaveLength(1);
    const sent = mails(email);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.html).toMatch(/\/reset-password\?token_hash=[^"&]+&(amp;)?type=invite/);
  });

  it("records the cohort the checkout sold a seat in, with the order; its access e-mail gives the start and a calendar file", async () => {
    const cohortOf = async (sessionId: string) =>
      (
        await stack.db.query<{ cohort_start: string | null }>(
          "select cohort_start::text from public.stripe_orders where checkout_session_id = $1",
          [sessionId],
        )
      ).rows[0]?.cohort_start;
    const ai = { amount_subtotal: 1_500_000, amount_total: 1_500_000 };
    const email = `${id("cohort")}@example.com`;
    const chosen = session(email, { ...ai, metadata: { product_key: "AI_ACCELERATOR", cohort_start: "2027-04-12" } });
    expect((await deliver(await sign(event("checkout.session.completed", chosen)))).status).toBe(200);
    expect(await cohortOf(chosen.id)).toBe("2027-04-12");
    const [access] = mails(email);
    expect(access!.text).toContain("Cohort starts: Monday, April 12, 2027");
    expect(access!.text).toContain("Your cohort starts on Monday, April 12, 2027. The orientation is open");
    const calendar = access!.attachments?.find((file) => file.filename === "cohort-start.ics");
    expect(calendar?.contentType).toMatch(/^text\/calendar/);
    const ics = Buffer.from(calendar!.content, "base64").toString("utf8");
    expect(ics).toContain("DTSTART;VALUE=DATE:20270412\r\n");
    expect(ics).toContain("SUMMARY:AI Advisor Accelerator: your cohort starts\r\n");

    // A session opened before the checkout named cohorts: the cohort the rule picked that day, here
    // one that had started nine days before.
    const starts = CATALOGUE.find((p) => p.key === "AI_ACCELERATOR")!.cohortStarts;
    const opened = Math.floor(Date.parse(`${addDays(starts[0]!, 9)}T18:00:00Z`) / 1000);
    const older = session(`${id("older")}@example.com`, {
      ...ai,
      created: opened,
      metadata: { product_key: "AI_ACCELERATOR" },
    });
    expect((await deliver(await sign(event("checkout.session.completed", older)))).status).toBe(200);
    expect(await cohortOf(older.id)).toBe(starts[0]);

    // A self-paced program has none; a later event keeps the cohort the order was given.
    const selfPaced = session(`${id("self")}@example.com`);
    expect((await deliver(await sign(event("checkout.session.completed", selfPaced)))).status).toBe(200);
    expect(await cohortOf(selfPaced.id)).toBeNull();
    const moved = { ...chosen, metadata: { product_key: "AI_ACCELERATOR", cohort_start: "2027-07-12" } };
    expect((await deliver(await sign(event("checkout.session.async_payment_succeeded", moved)))).status).toBe(200);
    expect(await cohortOf(chosen.id)).toBe("2027-04-12");
  });

  it("refuses unsigned, wrongly signed, stale and one-byte-changed deliveries, changing nothing (Stripe's constructEvent rules)", async () => {
    const email = `${id("victim")}@example.com`;
    const paid = session(email);
    const body = JSON.stringify(event("checkout.session.completed", paid));
    const good = await sign(body);
    const tamperedAmount = body.replace('"amount_total":30000', '"amount_total":30001');
    expect(tamperedAmount).not.toBe(body);
    const cases: [string, Partial<Delivery> & { payload: string }][] = [
      ["no signature header", { payload: body }],
      ["signed with another secret", await sign(body, { secret: `whsec_${randomBytes(24).toString("base64")}` })],
      [
        "signed 301 s ago (over the 300 s tolerance)",
        await sign(body, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
      ],
      ["a byte of the body changed", { payload: tamperedAmount, signature: good.signature }],
      ["a byte appended", { payload: `${body} `, signature: good.signature }],
      ["the signature of another body", { payload: body, signature: (await sign(`${body}\n`)).signature }],
      ["a garbled signature header", { payload: body, signature: "t=1,v1=deadbeef" }],
    ];
    for (const [name, delivery] of cases) {
      const response = await attack(delivery);
      expect(response.status, name).toBe(400);
    }
    expect(await anyRowsFor(paid.id, email)).toBe(0);
  });

  it("answers 400 to a correctly signed body that is not an event (null, a number, an array, an object without id and type), changing nothing", async () => {
    // stripe-node's constructEvent verifies the signature and returns JSON.parse(payload) as it is:
    // a signed `null` reaches the handler as null, and must not crash it (a 500 makes Stripe retry).
    const before = stack.mail.list().length;
    for (const body of ["null", "42", "[]", '"checkout.session.completed"', '{"type":"checkout.session.completed"}']) {
      const response = await attack(await sign(body));
      expect(response.status, body).toBe(400);
      expect(await response.json(), body).toEqual({ error: "The signed body is not a Stripe event." });
    }
    expect(stack.mail.list().length).toBe(before);
  });

  it("refuses a body over 1 MB before checking its signature: 413, nothing recorded", async () => {
    // Signed or not, a body that size is no Stripe event; reading it whole first would let a flood
    // of them exhaust a hosted worker's 256 MB (functions/_shared/body.ts).
    const email = `${id("oversize")}@example.com`;
    const paid = session(email);
    const padded = event("checkout.session.completed", {
      ...paid,
      metadata: { ...paid.metadata, pad: "x".repeat(MAX_BODY_BYTES) },
    });
    const response = await attack(await sign(padded), oversize);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "The request is larger than 1 MB." });
    expect(await anyRowsFor(paid.id, email)).toBe(0);
  });

  it("a replayed delivery (the same signed request again) changes nothing", async () => {
    const email = `${id("replay")}@example.com`;
    const paid = session(email);
    const delivery = await sign(event("checkout.session.completed", paid));
    expect((await deliver(delivery)).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const response = await deliver(delivery);
      // Within the tolerance a replay is a valid delivery of an event already recorded: 2xx, no change.
      const answer = (await response.json()) as { outcome?: string };
      forged.count(answer.outcome !== "duplicate");
      expect(answer).toEqual({ received: true, outcome: "duplicate" });
    }
    expect(await orders(paid.id)).toHaveLength(1);
    expect(await users(email)).toHaveLength(1);
    expect(mails(email)).toHaveLength(1);
  });

  it("the same event delivered twice, then 20 times at once, gives one order, one account and one e-mail", async () => {
    const email = `${id("concurrent")}@example.com`;
    const paid = session(email);
    const delivery = await sign(event("checkout.session.completed", paid));
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(delivery)));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    const outcomes = await Promise.all(answers.map(async (r) => ((await r.json()) as { outcome: string }).outcome));
    expect(outcomes.filter((o) => o === "recorded")).toHaveLength(1);
    expect((await deliver(delivery)).status).toBe(200);
    expect(await orders(paid.id)).toHaveLength(1);
    expect(await users(email)).toHaveLength(1);
    expect(mails(email)).toHaveLength(1);
  });

  it("20 purchases by one new buyer at once give one account, and 20 access e-mails that all carry the same set-password link", async () => {
    const email = `${id("rush")}@example.com`;
    const customer = id("cus");
    const deliveries = await Promise.all(
      Array.from({ length: 20 }, async () => sign(event("checkout.session.completed", session(email, { customer })))),
    );
    // 20 e-mails at once are more than Resend's 10 a second: the mail client waits out its 429s.
    const answers = await Promise.all(deliveries.map(deliver));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(await users(email)).toHaveLength(1);
    const sent = mails(email);
    expect(sent).toHaveLength(20);
    // Auth keeps one set-password token per account: one link, or all but the last would be dead.
    const links = new Set(sent.map((m) => /token_hash=([^&"]+)/.exec(m.html)?.[1]));
    expect(links.size).toBe(1);
    expect((await stack.client().auth.verifyOtp({ token_hash: [...links][0]!, type: "invite" })).data.user?.email).toBe(
      email,
    );
    const { rows } = await stack.db.query<{ n: number }>(
      "select count(*)::int as n from public.stripe_orders where customer_id = $1",
      [customer],
    );
    expect(rows[0]!.n).toBe(20);
  });

  it("while a delivery creates a new buyer's account, another asking for their set-password link waits for it instead of making a second", async () => {
    const linkOf = async (email: string) =>
      (await stack.db.query<{ answer: unknown }>("select public.set_password_link($1) as answer", [email])).rows[0]!
        .answer;
    // A delivery claimed the address and is creating the account (its link comes with it).
    const rush = `${id("creating")}@example.com`;
    await stack.db.query("select public.claim_buyer_invite($1)", [rush]);
    expect(await linkOf(rush)).toEqual({ claimed: false });
    // It recorded its event, keeping the link: everyone uses that one.
    await stack.db.query("select public.keep_set_password_link($1, 'kept-hash')", [rush]);
    expect(await linkOf(rush)).toEqual({ hash: "kept-hash" });

    // An account the webhook did not create: the first caller makes the link, the next waits for it.
    const other = `${id("existing")}@example.com`;
    expect(await linkOf(other)).toEqual({ claimed: true });
    expect(await linkOf(other)).toEqual({ claimed: false });
    await stack.db.query("select public.keep_set_password_link($1, 'made-hash')", [other]);
    expect(await linkOf(other)).toEqual({ hash: "made-hash" });
  });

  it("a delayed payment: pending at completion, completed when it settles, even when the events arrive the other way round", async () => {
    const inOrder = session(`${id("bank")}@example.com`, { payment_status: "unpaid", payment_intent: null });
    await deliver(await sign(event("checkout.session.completed", inOrder)));
    expect((await orders(inOrder.id))[0]).toMatchObject({ status: "pending", payment_status: "unpaid" });
    await deliver(
      await sign(event("checkout.session.async_payment_succeeded", { ...inOrder, payment_status: "paid" })),
    );
    expect((await orders(inOrder.id))[0]).toMatchObject({ status: "completed", payment_status: "paid" });

    const reversed = session(`${id("bank")}@example.com`, { payment_status: "unpaid" });
    await deliver(
      await sign(event("checkout.session.async_payment_succeeded", { ...reversed, payment_status: "paid" })),
    );
    await deliver(await sign(event("checkout.session.completed", reversed)));
    expect((await orders(reversed.id))[0]).toMatchObject({ status: "completed", payment_status: "paid" });
  });

  it("a failed delayed payment ends failed, whichever event comes first", async () => {
    for (const order of [
      ["completed", "failed"],
      ["failed", "completed"],
    ] as const) {
      const unpaid = session(`${id("fail")}@example.com`, { payment_status: "unpaid" });
      for (const step of order) {
        const type = step === "completed" ? "checkout.session.completed" : "checkout.session.async_payment_failed";
        expect((await deliver(await sign(event(type, unpaid)))).status).toBe(200);
      }
      expect((await orders(unpaid.id))[0]?.status).toBe("failed");
    }
  });

  it("an abandoned (expired) checkout leaves no order, no account and no e-mail", async () => {
    const email = `${id("abandoned")}@example.com`;
    const open = session(email, { status: "expired", payment_status: "unpaid", payment_intent: null });
    const response = await deliver(await sign(event("checkout.session.expired", open)));
    expect(response.status).toBe(200);
    expect(await anyRowsFor(open.id, email)).toBe(0);
  });

  it("answers 2xx and records nothing for events of no concern: other types, other sites' sessions", async () => {
    const email = `${id("other")}@example.com`;
    const foreign = session(email, { metadata: { product_key: "SOMETHING_ELSE" } });
    const noProduct = session(email, { metadata: {} });
    const subscription = session(email, { mode: "subscription" });
    for (const body of [
      event("customer.created", { id: id("cus"), object: "customer", email }),
      event("payment_intent.succeeded", { id: id("pi"), object: "payment_intent" }),
      event("checkout.session.completed", foreign),
      event("checkout.session.completed", noProduct),
      event("checkout.session.completed", subscription),
    ]) {
      const response = await deliver(await sign(body));
      expect(response.status).toBe(200);
      expect(((await response.json()) as { outcome: string }).outcome).toBe("ignored");
    }
    expect(await users(email)).toHaveLength(0);
    expect(mails(email)).toHaveLength(0);
  });

  describe("what was paid (functions/stripe-webhook/process.ts paymentProblem)", () => {
    const stripe = () => stripeClient({ STRIPE_SECRET_KEY: stack.stripe.secretKey, STRIPE_API_URL: stack.url });
    const reviews = async (sessionId: string) =>
      (
        await stack.db.query<{ event_id: string; amount_total: string | null; currency: string; reason: string }>(
          "select event_id, amount_total::text, currency, reason from public.stripe_payment_reviews where checkout_session_id = $1",
          [sessionId],
        )
      ).rows;
    /** A real Checkout Session at `price` on the Stripe stand-in, as Stripe sends it once paid. */
    const paidAt = async (price: string, email: string, productKey = "GROWTH_MINDSET") => {
      const made = await stripe().checkout.sessions.create({
        mode: "payment",
        customer_email: email,
        line_items: [{ price, quantity: 1 }],
        success_url: "http://localhost:4321/checkout/success?session_id={CHECKOUT_SESSION_ID}",
        cancel_url: "http://localhost:4321/checkout/GROWTH_MINDSET",
        metadata: { product_key: productKey },
      });
      return session(email, {
        id: made.id,
        amount_subtotal: made.amount_subtotal,
        amount_total: made.amount_total,
        currency: made.currency,
      });
    };
    const programProduct = async () => {
      const { data } = await stripe().prices.list({ lookup_keys: ["growth_mindset"], limit: 1 });
      return data[0]!.product as string;
    };

    it("holds a payment that is not the program's price for review: 1 cent, nothing, another currency; no order, account or e-mail, and a redelivery adds nothing", async () => {
      for (const [name, overrides] of [
        ["one cent", { amount_subtotal: 1, amount_total: 1 }],
        ["free", { amount_subtotal: 0, amount_total: 0 }],
        ["the price in another currency", { currency: "eur" }],
      ] as const) {
        const email = `${id("cheap")}@example.com`;
        const paid = session(email, overrides);
        const delivery = await sign(event("checkout.session.completed", paid));
        const response = await deliver(delivery);
        expect(response.status, name).toBe(200);
        expect(await response.json(), name).toEqual({ received: true, outcome: "held" });
        underpaid.count((await orders(paid.id)).length > 0 || (await users(email)).length > 0);
        expect(await anyRowsFor(paid.id, email), name).toBe(0);
        const [held] = await reviews(paid.id);
        expect(held, name).toMatchObject({ amount_total: String(paid.amount_total), currency: paid.currency });
        expect(held!.reason, name).toMatch(/^paid /);
        // The business is told, once.
        const told = () => mails(BUSINESS_EMAIL).filter((m) => m.text.includes(paid.id));
        expect(
          told().map((m) => m.subject),
          name,
        ).toEqual([`Payment held for review: Growth Mindset Mastery, ${email}`]);
        // Stripe delivers again: still one review and one e-mail, still nothing granted.
        expect((await deliver(delivery)).status).toBe(200);
        expect(await reviews(paid.id), name).toHaveLength(1);
        expect(told(), name).toHaveLength(1);
        expect(await anyRowsFor(paid.id, email), name).toBe(0);
      }
      expect(underpaid.accepted).toBe(0);
    });

    it("keeps the review through a mail outage; Stripe's redelivery sends the business its e-mail", async () => {
      const email = `${id("outage")}@example.com`;
      const paid = session(email, { amount_subtotal: 5, amount_total: 5 });
      const delivery = await sign(event("checkout.session.completed", paid));
      process.env.RESEND_API_KEY = "re_outage_test";
      process.env.RESEND_API_URL = "http://127.0.0.1:9";
      try {
        expect((await deliver(delivery)).status).toBe(500);
      } finally {
        delete process.env.RESEND_API_KEY;
        delete process.env.RESEND_API_URL;
      }
      const kept = await stack.db.query<{ notified_at: string | null; notify_error: string | null }>(
        "select notified_at, notify_error from public.stripe_payment_reviews where checkout_session_id = $1",
        [paid.id],
      );
      expect(kept.rows).toEqual([{ notified_at: null, notify_error: expect.stringMatching(/Resend/) }]);
      expect(await deliver(delivery).then((r) => r.json())).toEqual({ received: true, outcome: "held" });
      expect(mails(BUSINESS_EMAIL).filter((m) => m.text.includes(paid.id))).toHaveLength(1);
      expect(await anyRowsFor(paid.id, email)).toBe(0);
    });

    it("records a checkout started at the program's price before a change, which Stripe confirms", async () => {
      // stripe:setup keeps the outgoing price active while the functions still sell it
      // (functions/_shared/stripe-setup.ts); a buyer who opened the checkout then pays it.
      const older = await stripe().prices.create({
        product: await programProduct(),
        unit_amount: 25_000,
        currency: "usd",
      });
      const email = `${id("before-change")}@example.com`;
      const paid = await paidAt(older.id, email);
      expect(paid.amount_total).toBe(25_000);
      const response = await deliver(await sign(event("checkout.session.completed", paid)));
      expect(await response.json()).toEqual({ received: true, outcome: "recorded" });
      expect(await orders(paid.id)).toMatchObject([{ status: "completed", product_key: "GROWTH_MINDSET" }]);
      expect(await reviews(paid.id)).toEqual([]);
    });

    it("holds a real session for another Stripe product that carries the program's key, and an event whose amount is not Stripe's", async () => {
      const other = await stripe().products.create({ name: "Workshop seat" });
      const price = await stripe().prices.create({ product: other.id, unit_amount: 5_000, currency: "usd" });
      const email = `${id("other-product")}@example.com`;
      const paid = await paidAt(price.id, email);
      const response = await deliver(await sign(event("checkout.session.completed", paid)));
      expect(await response.json()).toEqual({ received: true, outcome: "held" });
      underpaid.count((await orders(paid.id)).length > 0);
      expect(await anyRowsFor(paid.id, email)).toBe(0);
      expect((await reviews(paid.id))[0]!.reason).toContain(`of another Stripe product (${other.id})`);

      // A signed event that says less was paid than Stripe's own session.
      const older = await stripe().prices.create({
        product: await programProduct(),
        unit_amount: 20_000,
        currency: "usd",
      });
      const real = await paidAt(older.id, `${id("understated")}@example.com`);
      const understated = { ...real, amount_subtotal: 60, amount_total: 60 };
      const second = await deliver(await sign(event("checkout.session.completed", understated)));
      expect(await second.json()).toEqual({ received: true, outcome: "held" });
      underpaid.count((await orders(real.id)).length > 0);
      expect((await reviews(real.id))[0]!.reason).toBe("paid 60 usd by the event, 20000 usd at Stripe");
      expect(underpaid.accepted).toBe(0);
    });

    it("holds a bank debit at the wrong price when it starts and when it clears; its failure or expiry needs no check", async () => {
      const email = `${id("debit")}@example.com`;
      const pending = session(email, { payment_status: "unpaid", amount_subtotal: 100, amount_total: 100 });
      const started = await deliver(await sign(event("checkout.session.completed", pending)));
      expect(await started.json()).toEqual({ received: true, outcome: "held" });
      const cleared = await deliver(
        await sign(event("checkout.session.async_payment_succeeded", { ...pending, payment_status: "paid" })),
      );
      expect(await cleared.json()).toEqual({ received: true, outcome: "held" });
      expect(await reviews(pending.id)).toHaveLength(2);
      expect(await anyRowsFor(pending.id, email)).toBe(0);
    });
  });

  it("refuses other methods", async () => {
    const response = await fetch(`${stack.url}/functions/v1/stripe-webhook`);
    expect(response.status).toBe(405);
  });
});
