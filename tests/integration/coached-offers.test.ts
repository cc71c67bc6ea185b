/**
 * Coached offers in the database (supabase/migrations/*_coached_offers.sql, docs/coached-offers.md):
 * what the functions write with the service role, and what each caller reads and changes over
 * HTTP with the real supabase-js: an admin reads every offer with its state and withdraws one not
 * yet paid; a coach, a customer and a visitor read nothing and change nothing; nobody reads the
 * link's token hash. On embedded Postgres and on PostgreSQL. Then the function that sends one
 * (functions/send-offer): an admin's request stored and e-mailed with its single-use link, anyone
 * else's refused, a request the catalogue refuses answered field by field, and a mail outage that
 * leaves no offer listed as sent.
 *
 * As in tests/integration/staff.test.ts, a permission error is 403 (401 for the anon key), as
 * PostgREST maps 42501 (packages/local-stack/src/postgrest/errors.ts `pgErrorStatus`).
 */
import { createHash, randomBytes } from "node:crypto";
import type { SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, startTestStack, type TestStack } from "@advisor-accelerator/local-stack";
import { CATALOGUE, COACHED_OFFERS, TIME_ZONE } from "../../functions/_shared/catalogue.ts";
import { cohortOn, dayIn, formatDay } from "../../packages/shared/cohort.ts";
import { offerPayment } from "../../packages/shared/offer-options.ts";
import { logTallies, Tally } from "../support/hostile.ts";
import { checkoutSession, payOnPage, signEvent, stripeEvent, TEST_CARD } from "../support/stripe-events.ts";
import { stripeClient } from "../../functions/_shared/stripe.ts";
import { offerStripeKeys } from "../../functions/_shared/offers.ts";

const ai = COACHED_OFFERS.find((offer) => offer.id === "ai-advisor-accelerator")!;

const leaks = new Tally("offers read or changed by non-admins");
afterAll(() => logTallies(leaks));

/** PostgREST's bytea input: `\x` and hex. */
const tokenHash = () => `\\x${createHash("sha256").update(randomBytes(32)).digest("hex")}`;
const DAY = 24 * 60 * 60 * 1000;

/** An offer as the sending function will write it: the AI offer, six instalments or in full. */
function offerRow(overrides: Record<string, unknown> = {}) {
  return {
    offer_key: "ai-advisor-accelerator",
    product_key: "AI_ACCELERATOR",
    name: "Avery Applicant",
    email: "avery@example.com",
    cohort_start: "2027-01-11",
    list_price_cents: 3500000,
    price_cents: 3500000,
    payment: offerPayment(ai, ai.priceCents, "2027-01-11"),
    token_hash: tokenHash(),
    expires_at: new Date(Date.now() + 7 * DAY).toISOString(),
    ...overrides,
  };
}

describe.each(BACKENDS)("coached offers on $name", (backend) => {
  let stack: TestStack;
  let service: SupabaseClient;
  const users: Record<string, { id: string; client: SupabaseClient }> = {};

  async function account(name: string, role?: "coach" | "admin") {
    const email = `${name}@example.com`;
    const password = `pw-${name}-2026`;
    const created = await service.auth.admin.createUser({ email, password, email_confirm: true });
    expect(created.error).toBeNull();
    if (role) expect((await service.rpc("staff_add", { p_email: email, p_role: role })).error).toBeNull();
    const client = stack.client();
    expect((await client.auth.signInWithPassword({ email, password })).error).toBeNull();
    users[name] = { id: created.data.user!.id, client };
  }

  async function insert(overrides: Record<string, unknown> = {}) {
    const { data, error } = await service.from("coached_offers").insert(offerRow(overrides)).select("id").single();
    expect(error).toBeNull();
    return data!.id as string;
  }

  beforeAll(async () => {
    // The catalogue as npm run stripe:setup makes it: the offers' prices by lookup key.
    stack = await startTestStack(backend, { seed: false });
    service = stack.admin();
    await account("boss", "admin");
    await account("coach", "coach");
    await account("buyer");
  }, 120_000);

  afterAll(() => stack?.stop());

  it("an admin reads each offer with its state: sent, opened, paid, expired, withdrawn", async () => {
    const lead = await service
      .from("leads")
      .insert({ name: "Avery Applicant", email: "avery@example.com", page: "/get-started-ai" })
      .select("id")
      .single();
    const sent = await insert({ lead_id: lead.data!.id, created_by: users.boss!.id });
    const opened = await insert({ opened_at: new Date().toISOString() });
    const paid = await insert({ opened_at: new Date().toISOString(), paid_at: new Date().toISOString() });
    const expired = await insert({
      created_at: new Date(Date.now() - 8 * DAY).toISOString(),
      expires_at: new Date(Date.now() - DAY).toISOString(),
    });
    const withdrawn = await insert({ withdrawn_at: new Date().toISOString(), withdrawn_by: users.boss!.id });
    const { data, error } = await users.boss!.client.from("desk_offers").select("id, status, lead_id, name");
    expect(error).toBeNull();
    const status = Object.fromEntries(data!.map((row) => [row.id, row.status]));
    expect([sent, opened, paid, expired, withdrawn].map((id) => status[id])).toEqual([
      "sent",
      "opened",
      "paid",
      "expired",
      "withdrawn",
    ]);
    expect(data!.find((row) => row.id === sent)).toMatchObject({ lead_id: lead.data!.id, name: "Avery Applicant" });
  });

  it("nobody reads the link's token hash, an admin neither; the offer's other columns are the admin's", async () => {
    await insert();
    const hash = await users.boss!.client.from("coached_offers").select("token_hash");
    expect(hash.status).toBe(403);
    leaks.count(!hash.error);
    const rest = await users.boss!.client.from("coached_offers").select("id, price_cents, payment").limit(1);
    expect(rest.error).toBeNull();
    expect(rest.data).toHaveLength(1);
  });

  it("a coach, a customer and a visitor read no offer, and none can write one", async () => {
    await insert();
    for (const [who, client] of [
      ["coach", users.coach!.client],
      ["customer", users.buyer!.client],
      ["anon", stack.client()],
    ] as const) {
      for (const source of ["coached_offers", "desk_offers"]) {
        const { data, error } = await client.from(source).select("id");
        leaks.count(!error && data!.length > 0);
        expect(error ? [] : data, `${who} reads ${source}`).toEqual([]);
      }
      const written = await client.from("coached_offers").insert(offerRow());
      leaks.count(!written.error);
      expect(written.status, `${who} inserts`).toBe(who === "anon" ? 401 : 403);
    }
    // An admin neither: offers are sent by the function, which e-mails the link.
    const byAdmin = await users.boss!.client.from("coached_offers").insert(offerRow());
    leaks.count(!byAdmin.error);
    expect(byAdmin.status).toBe(403);
  });

  it("an admin withdraws an offer not yet paid, once; a paid one is refused; anyone else gets 403 and changes nothing", async () => {
    const id = await insert();
    for (const [who, client, status] of [
      ["customer", users.buyer!.client, 403],
      ["coach", users.coach!.client, 403],
      ["anon", stack.client(), 401],
    ] as const) {
      const tried = await client.rpc("desk_withdraw_offer", { p_id: id });
      leaks.count(!tried.error);
      expect(tried.status, who).toBe(status);
    }
    const status = async () =>
      (await users.boss!.client.from("desk_offers").select("status, withdrawn_by").eq("id", id).single()).data;
    expect(await status()).toEqual({ status: "sent", withdrawn_by: null });

    const first = await users.boss!.client.rpc("desk_withdraw_offer", { p_id: id });
    expect(first.error).toBeNull();
    expect(await status()).toEqual({ status: "withdrawn", withdrawn_by: users.boss!.id });
    // Again: the same answer, the first withdrawal kept.
    const again = await users.boss!.client.rpc("desk_withdraw_offer", { p_id: id });
    expect(again.data.withdrawn_at).toBe(first.data.withdrawn_at);

    const paid = await insert({ paid_at: new Date().toISOString() });
    const refused = await users.boss!.client.rpc("desk_withdraw_offer", { p_id: paid });
    expect([refused.status, refused.error?.message]).toEqual([409, "This offer is paid; refund the payment instead"]);
    const missing = await users.boss!.client.rpc("desk_withdraw_offer", {
      p_id: "00000000-0000-4000-8000-000000000000",
    });
    expect(missing.status).toBe(404);
  });

  it("refuses an offer at another price without its reason, one that expires before it is sent, one with no way to pay, and a token hash that is not SHA-256", async () => {
    const refused = async (overrides: Record<string, unknown>) => {
      const { error, status } = await service.from("coached_offers").insert(offerRow(overrides));
      expect(status, JSON.stringify(overrides)).toBe(400);
      return error!.message;
    };
    expect(await refused({ price_cents: 3000000 })).toMatch(/coached_offers_price_reason/);
    expect(await refused({ expires_at: new Date(Date.now() - DAY).toISOString() })).toMatch(/coached_offers_expiry/);
    expect(await refused({ payment: { options: [], membership: null, terms: "" } })).toMatch(/check constraint/);
    expect(await refused({ payment: [] })).toMatch(/check constraint/);
    expect(await refused({ token_hash: "\\x00" })).toMatch(/check constraint/);
    // With the reason, another price is kept, beside the content's.
    const id = await insert({ price_cents: 3000000, price_reason: "Founding cohort rate agreed on the call" });
    const { data } = await users
      .boss!.client.from("desk_offers")
      .select("list_price_cents, price_cents, price_reason")
      .eq("id", id)
      .single();
    expect(data).toEqual({
      list_price_cents: 3500000,
      price_cents: 3000000,
      price_reason: "Founding cohort rate agreed on the call",
    });
  });

  describe("sending (functions/send-offer)", () => {
    const product = CATALOGUE.find((p) => p.key === ai.productKey)!;
    /** The cohort a buyer could join today, as the desk offers it. */
    const cohort = () => cohortOn(product.cohortStarts, dayIn(TIME_ZONE))!.start;

    async function lead(email: string) {
      const { data, error } = await service
        .from("leads")
        .insert({ name: "Jordan Rivers", email, page: "/get-started-ai" })
        .select("id")
        .single();
      expect(error).toBeNull();
      return data!.id as string;
    }

    /** The desk's call: the caller's supabase-js asks the function, with their access token. */
    async function send(client: SupabaseClient, body: Record<string, unknown>) {
      const { data, error, response } = await client.functions.invoke<{
        id: string;
        status: string;
        expires_at: string;
      }>("send-offer", { body });
      const context = (error as { context?: Response } | null)?.context;
      return { status: (context ?? response)!.status, data, refused: context ? await context.json() : null };
    }

    const offersTo = async (email: string) =>
      (await service.from("desk_offers").select("id, status, name, email, price_cents").eq("email", email)).data!;
    const mailTo = (email: string) => stack.mail.list().filter((m) => m.to === email);

    it("an admin's offer is stored with the lead's name and e-mail, and e-mailed with a single-use link the database keeps only as its SHA-256", async () => {
      const email = "jordan@example.com";
      const id = await lead(email);
      const { status, data } = await send(users.boss!.client, {
        lead: id,
        offer: ai.id,
        cohortStart: cohort(),
      });
      expect(status).toBe(201);
      expect(data!.status).toBe("sent");
      const days = (Date.parse(data!.expires_at) - Date.now()) / DAY;
      expect(days).toBeGreaterThan(6.99);
      expect(days).toBeLessThanOrEqual(7);

      const stored = await offersTo(email);
      expect(stored).toEqual([
        { id: data!.id, status: "sent", name: "Jordan Rivers", email, price_cents: ai.priceCents },
      ]);
      const [mail, ...more] = mailTo(email);
      expect(more).toEqual([]);
      expect(mail!.subject).toBe("Your offer to join AI Advisor Accelerator");
      const link = /http:\/\/localhost:\d+\/offer\/([A-Za-z0-9_-]{43})/.exec(mail!.text)!;
      expect(link).not.toBeNull();
      const { rows } = await stack.db.query<{ hash: string; lead_id: string; created_by: string }>(
        "select encode(token_hash, 'hex') as hash, lead_id, created_by from public.coached_offers where id = $1",
        [data!.id],
      );
      expect(rows).toEqual([
        {
          hash: createHash("sha256").update(link[1]!).digest("hex"),
          lead_id: id,
          created_by: users.boss!.id,
        },
      ]);
      // The link is in the e-mail only.
      expect(JSON.stringify(await stack.db.query("select * from public.coached_offers"))).not.toContain(link[1]);
    });

    it("a coach, a customer and the public key are refused, and nothing is stored or sent", async () => {
      const email = "refused@example.com";
      const id = await lead(email);
      const body = { lead: id, offer: ai.id, cohortStart: cohort() };
      for (const [who, client, expected] of [
        ["coach", users.coach!.client, 403],
        ["customer", users.buyer!.client, 403],
        ["anon", stack.client(), 401],
      ] as const) {
        const { status } = await send(client, body);
        leaks.count(status < 400);
        expect(status, who).toBe(expected);
      }
      expect(await offersTo(email)).toEqual([]);
      expect(mailTo(email)).toEqual([]);
    });

    it("what the catalogue refuses is answered with the field to mend, and nothing is stored or sent", async () => {
      const email = "mend@example.com";
      const id = await lead(email);
      const cases: [Record<string, unknown>, number, string, RegExp][] = [
        [{ offer: "platinum" }, 400, "offer", /no coached offer "platinum"/],
        [{ offer: ai.id, cohortStart: "2020-01-06" }, 400, "cohortStart", /Choose the cohort/],
        [{ offer: ai.id, cohortStart: cohort(), priceCents: 3000000 }, 400, "priceReason", /Say why/],
        [{ offer: ai.id, cohortStart: cohort(), priceCents: "30000" }, 400, "priceCents", /whole number/],
        [{ offer: ai.id, cohortStart: cohort(), expiresInDays: 31 }, 400, "expiresInDays", /1 to 30 days/],
      ];
      for (const [body, status, field, message] of cases) {
        const sent = await send(users.boss!.client, { lead: id, ...body });
        expect([sent.status, sent.refused?.field], JSON.stringify(body)).toEqual([status, field]);
        expect(sent.refused.error).toMatch(message);
      }
      const gone = await send(users.boss!.client, {
        lead: "00000000-0000-4000-8000-000000000000",
        offer: ai.id,
        cohortStart: cohort(),
      });
      expect([gone.status, gone.refused.field]).toEqual([404, "lead"]);
      expect(await offersTo(email)).toEqual([]);
      expect(mailTo(email)).toEqual([]);
    });

    it("another price is sent with its reason, its plan split into equal payments that still come to it plus the fee", async () => {
      const email = "founding@example.com";
      const id = await lead(email);
      const { status, data } = await send(users.boss!.client, {
        lead: id,
        offer: ai.id,
        cohortStart: cohort(),
        priceCents: 3000000,
        priceReason: "Founding cohort rate agreed on the call",
        expiresInDays: 3,
      });
      expect(status).toBe(201);
      const { data: row } = await service
        .from("desk_offers")
        .select("price_cents, list_price_cents, price_reason, payment, expires_at")
        .eq("id", data!.id)
        .single();
      expect(row).toMatchObject({
        price_cents: 3000000,
        list_price_cents: ai.priceCents,
        price_reason: "Founding cohort rate agreed on the call",
      });
      const plan = row!.payment.options.find((o: { kind: string }) => o.kind === "plan");
      expect(plan.instalmentsCents).toHaveLength(6);
      expect(plan.instalmentsCents.reduce((a: number, b: number) => a + b, 0)).toBe(3000000 + plan.feeCents);
      expect((Date.parse(row!.expires_at) - Date.now()) / DAY).toBeCloseTo(3, 2);
      expect(mailTo(email)[0]!.text).toContain("$30,000 in one payment.");
    });

    it("when the e-mail cannot go, the admin is told and no offer is listed as sent", async () => {
      const email = "outage@example.com";
      const id = await lead(email);
      // The mail provider unreachable (a closed port), as during an outage.
      process.env.RESEND_API_KEY = "re_outage_test";
      process.env.RESEND_API_URL = "http://127.0.0.1:9";
      try {
        const { status, refused } = await send(users.boss!.client, { lead: id, offer: ai.id, cohortStart: cohort() });
        expect(status).toBe(503);
        expect(refused.error).toBe("The offer's e-mail could not be sent, so nothing was sent. Please try again.");
      } finally {
        delete process.env.RESEND_API_KEY;
        delete process.env.RESEND_API_URL;
      }
      expect(await offersTo(email)).toEqual([]);
      const again = await send(users.boss!.client, { lead: id, offer: ai.id, cohortStart: cohort() });
      expect(again.status).toBe(201);
      expect(mailTo(email)).toHaveLength(1);
    });
  });

  describe("the applicant's link (functions/offer)", () => {
    const newToken = () => randomBytes(32).toString("base64url");
    const hashOf = (token: string) => `\\x${createHash("sha256").update(token).digest("hex")}`;

    /** The page's call: a plain POST from the site, no Supabase JWT. */
    async function open(body: Record<string, unknown>) {
      const response = await fetch(`${stack.url}/functions/v1/offer`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }

    async function offerWith(overrides: Record<string, unknown> = {}) {
      const token = newToken();
      const id = await insert({ token_hash: hashOf(token), name: "Riley Morgan Park", ...overrides });
      return { token, id };
    }

    const openedAt = async (id: string) =>
      (await service.from("coached_offers").select("opened_at").eq("id", id).single()).data!.opened_at as string | null;

    it("answers the offer as sent, and marks it opened the first time only", async () => {
      const { token, id } = await offerWith();
      const first = await open({ token });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        name: "Riley Morgan Park",
        program: { name: "AI Advisor Accelerator", includes: ai.includes },
        cohortStart: "2027-01-11",
        priceCents: 3500000,
        payment: offerPayment(ai, ai.priceCents, "2027-01-11"),
        today: dayIn(TIME_ZONE),
      });
      expect(first.body).not.toHaveProperty("email");
      const opened = await openedAt(id);
      expect(opened).not.toBeNull();
      await open({ token });
      expect(await openedAt(id)).toBe(opened);
      const { data } = await users.boss!.client.from("desk_offers").select("status").eq("id", id).single();
      expect(data!.status).toBe("opened");
    });

    it("refuses a used, withdrawn or expired link with what to do, and an unknown or malformed one as not valid, opening nothing", async () => {
      const paid = await offerWith({ paid_at: new Date().toISOString() });
      const withdrawn = await offerWith({ withdrawn_at: new Date().toISOString() });
      const expired = await offerWith({
        created_at: new Date(Date.now() - 8 * DAY).toISOString(),
        expires_at: new Date(Date.now() - DAY).toISOString(),
      });
      const said = async (token: string) => {
        const { status, body } = await open({ token, option: "in_full" });
        return [status, body.code, body.error];
      };
      expect(await said(paid.token)).toEqual([410, "paid", expect.stringMatching(/client portal/)]);
      expect(await said(withdrawn.token)).toEqual([410, "withdrawn", expect.stringMatching(/withdrawn/)]);
      expect(await said(expired.token)).toEqual([410, "expired", expect.stringMatching(/expired on .* new one/)]);
      for (const token of [newToken(), "short", 42]) {
        expect((await said(token as string)).slice(0, 2)).toEqual([404, "not_found"]);
      }
      for (const { id } of [paid, withdrawn, expired]) expect(await openedAt(id)).toBeNull();
    });

    it("refuses a way to pay the offer was not sent with, and a seat in a cohort no longer open, before anything reaches Stripe", async () => {
      const { token } = await offerWith();
      for (const option of ["plan:0", "plan:7", "monthly", 1]) {
        const { status, body } = await open({ token, option });
        expect([status, body.code], String(option)).toEqual([400, "bad_option"]);
      }
      const late = await offerWith({ cohort_start: "2020-01-06" });
      const { status, body } = await open({ token: late.token, option: "in_full" });
      expect([status, body.code]).toEqual([409, "cohort_closed"]);
      const { data } = await service.from("coached_offers").select("checkout_session_id").eq("id", late.id).single();
      expect(data!.checkout_session_id).toBeNull();
    });
  });

  describe("paying an offer (functions/stripe-webhook)", () => {
    const underpaid = new Tally("offer payments not as sent");
    afterAll(() => logTallies(underpaid));
    // Growth Mindset Mastery's offer: self-paced, no membership; Stripe is asked nothing about these
    // events' made-up sessions (the AI offer's membership would look up its card).
    const gmm = COACHED_OFFERS.find((offer) => offer.id === "growth-mindset")!;
    const sendGmm = (overrides: Record<string, unknown>) =>
      insert({
        offer_key: gmm.id,
        product_key: gmm.productKey,
        cohort_start: null,
        list_price_cents: gmm.priceCents,
        price_cents: gmm.priceCents,
        payment: offerPayment(gmm, gmm.priceCents, null),
        ...overrides,
      });
    const full = gmm.priceCents;
    const first = offerPayment(gmm, gmm.priceCents, null)!.options.find((o) => o.kind === "plan")!;
    const firstPlanPayment = first.kind === "plan" ? first.instalmentsCents[0]! : 0;

    const deliver = async (type: string, session: ReturnType<typeof checkoutSession>) => {
      const { payload, signature } = await signEvent(stripeEvent(type, session), stack.stripe.webhookSecret);
      const response = await fetch(`${stack.url}/functions/v1/stripe-webhook`, {
        method: "POST",
        headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": signature },
        body: payload,
      });
      return { status: response.status, outcome: ((await response.json()) as { outcome?: string }).outcome };
    };
    /** The session the offer's checkout opens for `option`, paid. */
    const paying = (id: string, email: string, amount: number, extra: Record<string, string> = {}) =>
      checkoutSession(email, {
        amount_subtotal: amount,
        amount_total: amount,
        metadata: {
          product_key: gmm.productKey,
          offer_id: id,
          offer_option: "in_full",
          ...extra,
        },
      });
    const ordersOf = async (sessionId: string) =>
      (
        await stack.db.query<{ status: string; amount_total: number; cohort_start: string }>(
          "select status::text, amount_total, cohort_start::text from public.stripe_orders where checkout_session_id = $1",
          [sessionId],
        )
      ).rows;
    const statusOf = async (id: string) =>
      (await service.from("desk_offers").select("status").eq("id", id).single()).data!.status as string;
    const held = async (sessionId: string) =>
      (
        await stack.db.query<{ expected_amount: number; reason: string }>(
          "select expected_amount, reason from public.stripe_payment_reviews where checkout_session_id = $1",
          [sessionId],
        )
      ).rows;

    it("records an offer paid in full as the program's order, once, and marks the offer paid", async () => {
      const email = "paid-in-full@example.com";
      const id = await sendGmm({ email });
      const session = paying(id, email, full);
      expect(await deliver("checkout.session.completed", session)).toEqual({ status: 200, outcome: "recorded" });
      expect(await ordersOf(session.id)).toEqual([{ status: "completed", amount_total: full, cohort_start: null }]);
      expect(await statusOf(id)).toBe("paid");
      // Stripe's redelivery changes nothing.
      expect(await deliver("checkout.session.completed", session)).toMatchObject({ status: 200 });
      expect(await ordersOf(session.id)).toHaveLength(1);
    });

    it("holds a payment that is not what the chosen way to pay asks, or for an offer never sent, or a second payment of a paid offer: no order, the offer unchanged", async () => {
      const email = "not-as-sent@example.com";
      const id = await sendGmm({ email });
      const cases = [
        [paying(id, email, full - 100000), full, new RegExp(`offer .* asks ${full} usd`)],
        [
          paying(id, email, firstPlanPayment, { offer_option: "plan:1" }),
          firstPlanPayment,
          /in payment mode; the offer's plan is paid in subscription mode/,
        ],
        [paying(id, email, firstPlanPayment, { offer_option: "plan:4" }), null, /was not sent with/],
        [paying("00000000-0000-4000-8000-000000000000", email, full), null, /never sent/],
        [paying("not-a-uuid", email, full), null, /never sent/],
      ] as const;
      for (const [session, expected, reason] of cases) {
        const answer = await deliver("checkout.session.completed", session);
        underpaid.count(answer.outcome !== "held");
        expect(answer).toEqual({ status: 200, outcome: "held" });
        expect(await ordersOf(session.id)).toEqual([]);
        expect(await held(session.id)).toEqual([{ expected_amount: expected, reason: expect.stringMatching(reason) }]);
      }
      expect(await statusOf(id)).toBe("sent");

      const first = paying(id, email, full);
      expect((await deliver("checkout.session.completed", first)).outcome).toBe("recorded");
      const second = paying(id, email, full);
      const again = await deliver("checkout.session.completed", second);
      underpaid.count(again.outcome !== "held");
      expect(again.outcome).toBe("held");
      expect(await held(second.id)).toEqual([
        { expected_amount: full, reason: expect.stringMatching(/paid already through another session/) },
      ]);
    });
  });

  describe("choosing a way to pay (functions/offer, Stripe's hosted page)", () => {
    const keys = offerStripeKeys(ai.id);
    const newToken = () => randomBytes(32).toString("base64url");
    const stripe = () => stripeClient({ STRIPE_SECRET_KEY: stack.stripe.secretKey, STRIPE_API_URL: stack.url });

    async function offerWith(overrides: Record<string, unknown> = {}) {
      const token = newToken();
      const hash = `\\x${createHash("sha256").update(token).digest("hex")}`;
      const id = await insert({
        token_hash: hash,
        email: `${token.slice(0, 8).toLowerCase()}@example.com`,
        ...overrides,
      });
      return { token, id };
    }
    const choose = async (token: string, option: string) => {
      const response = await fetch(`${stack.url}/functions/v1/offer`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token, option }),
      });
      return { status: response.status, body: (await response.json()) as { url?: string; code?: string } };
    };
    const sessionOf = async (url: string) =>
      stripe().checkout.sessions.retrieve(/cs_test_[A-Za-z0-9]+/.exec(url)![0], { expand: ["line_items"] });

    it("opens Checkout in payment mode at the offer's price in full, by its lookup key, for the offer's e-mail, and keeps the session on the offer", async () => {
      const { token, id } = await offerWith();
      const { status, body } = await choose(token, "in_full");
      expect(status).toBe(200);
      const session = await sessionOf(body.url!);
      expect(session).toMatchObject({
        mode: "payment",
        status: "open",
        amount_total: 3500000,
        metadata: { product_key: "AI_ACCELERATOR", offer_id: id, offer_option: "in_full", cohort_start: "2027-01-11" },
      });
      expect(session.line_items!.data[0]!.price).toMatchObject({ lookup_key: keys.inFull, unit_amount: 3500000 });
      const customer = await stripe().customers.retrieve(session.customer as string);
      expect((customer as { email: string }).email).toMatch(/@example\.com$/);
      const { data } = await service
        .from("coached_offers")
        .select("checkout_session_id, chosen_option, opened_at")
        .eq("id", id)
        .single();
      expect(data).toMatchObject({ checkout_session_id: session.id, chosen_option: "in_full" });
      expect(data!.opened_at).not.toBeNull();
    });

    it("opens a plan as a monthly subscription at its first payment, by the plan's lookup key; choosing again expires the session before", async () => {
      const { token, id } = await offerWith();
      const first = await sessionOf((await choose(token, "in_full")).body.url!);
      const { status, body } = await choose(token, "plan:1");
      expect(status).toBe(200);
      const plan = await sessionOf(body.url!);
      expect(plan).toMatchObject({
        mode: "subscription",
        amount_total: 600000,
        metadata: { offer_id: id, offer_option: "plan:1" },
      });
      expect(plan.line_items!.data[0]!.price).toMatchObject({
        lookup_key: keys.plan(6),
        unit_amount: 600000,
        recurring: { interval: "month", interval_count: 1 },
      });
      expect((await stripe().checkout.sessions.retrieve(first.id)).status).toBe("expired");
      // The success page asks about it before the webhook has recorded it: Stripe's word, as for a program's.
      const asked = await fetch(`${stack.url}/functions/v1/checkout-status?session_id=${plan.id}`);
      expect(asked.status).toBe(200);
      expect(await asked.json()).toMatchObject({ state: "open", amountCents: 600000 });
    });

    it("charges an offer sent at another price with inline prices of the offer's product", async () => {
      const { token } = await offerWith({
        price_cents: 3000000,
        price_reason: "Founding cohort rate agreed on the call",
        payment: offerPayment(ai, 3000000, "2027-01-11"),
      });
      const inFull = await sessionOf((await choose(token, "in_full")).body.url!);
      expect(inFull.amount_total).toBe(3000000);
      expect(inFull.line_items!.data[0]!.price).toMatchObject({
        product: keys.product,
        lookup_key: null,
        unit_amount: 3000000,
      });
      const plan = await sessionOf((await choose(token, "plan:1")).body.url!);
      const firstPayment = offerPayment(ai, 3000000, "2027-01-11")!.options[1]!;
      expect(plan.amount_total).toBe(firstPayment.kind === "plan" ? firstPayment.instalmentsCents[0] : 0);
      expect(plan.line_items!.data[0]!.price).toMatchObject({
        product: keys.product,
        recurring: { interval: "month" },
      });
    });

    it("a plan's first payment with 4242: the order, the offer paid, the plan at 1 of 6, and its subscription set to end after the sixth", async () => {
      const { token, id } = await offerWith();
      const session = await sessionOf((await choose(token, "plan:1")).body.url!);
      expect((await payOnPage(session, TEST_CARD)).status).toBe(303);
      await stack.stripe.idle();
      const paid = await stripe().checkout.sessions.retrieve(session.id);
      const { rows } = await stack.db.query<{ status: string; amount_total: number }>(
        "select status::text, amount_total from public.stripe_orders where checkout_session_id = $1",
        [session.id],
      );
      expect(rows).toEqual([{ status: "completed", amount_total: 600000 }]);
      expect((await service.from("desk_offers").select("status").eq("id", id).single()).data!.status).toBe("paid");
      const plan = await service
        .from("payment_plans")
        .select("name, payments, paid_invoices, checkout_session_id, past_due_since")
        .eq("subscription_id", paid.subscription as string)
        .single();
      expect(plan.data).toMatchObject({
        name: "Six monthly payments",
        checkout_session_id: session.id,
        paid_invoices: [paid.invoice],
        past_due_since: null,
      });
      expect(plan.data!.payments).toHaveLength(6);
      // The desk's admins read the plan by its offer; a coach reads nothing of it.
      const byAdmin = await users
        .boss!.client.from("payment_plans")
        .select("offer_id, paid_invoices")
        .eq("offer_id", id);
      expect(byAdmin.data).toEqual([{ offer_id: id, paid_invoices: [paid.invoice] }]);
      const byCoach = await users.coach!.client.from("payment_plans").select("offer_id").eq("offer_id", id);
      leaks.count((byCoach.data ?? []).length > 0);
      expect(byCoach.data ?? []).toEqual([]);
      const subscription = await stripe().subscriptions.retrieve(paid.subscription as string);
      expect(subscription.schedule).not.toBeNull();
      const schedule = await stripe().subscriptionSchedules.retrieve(subscription.schedule as string);
      expect(schedule.end_behavior).toBe("cancel");
      expect(schedule.phases.map((phase) => phase.items[0]!.price)).toHaveLength(1);
      expect(schedule.phases[0]!.end_date - schedule.phases[0]!.start_date).toBeGreaterThan(150 * 86400);
    });

    it("paid in full with 4242 on the hosted page: the program's order in the offer's cohort, the offer paid, and its link used", async () => {
      const { token, id } = await offerWith();
      const session = await sessionOf((await choose(token, "in_full")).body.url!);
      expect((await payOnPage(session, TEST_CARD)).status).toBe(303);
      await stack.stripe.idle();
      const { rows } = await stack.db.query<{ status: string; cohort_start: string }>(
        "select status::text, cohort_start::text from public.stripe_orders where checkout_session_id = $1",
        [session.id],
      );
      expect(rows).toEqual([{ status: "completed", cohort_start: "2027-01-11" }]);
      const { data } = await service.from("desk_offers").select("status").eq("id", id).single();
      expect(data!.status).toBe("paid");
      expect(await choose(token, "in_full")).toMatchObject({ status: 410, body: { code: "paid" } });
    });

    it("a failed instalment: past due from its day, the buyer e-mailed its page once, access paused 14 days on and back the moment it is paid; a late older event changes nothing", async () => {
      const { token } = await offerWith();
      const session = await sessionOf((await choose(token, "plan:1")).body.url!);
      await payOnPage(session, TEST_CARD);
      await stack.stripe.idle();
      const paid = await stripe().checkout.sessions.retrieve(session.id);
      const subscription = paid.subscription as string;
      const email = paid.customer_details!.email!;
      const DAY_S = 86400;
      const now = Math.floor(Date.now() / 1000);
      const invoice = (attempt: number) => ({
        id: "in_failedsecond1",
        object: "invoice",
        amount_due: 600000,
        amount_paid: attempt === 4 ? 600000 : 0,
        currency: "usd",
        attempt_count: attempt,
        created: now - 2 * DAY_S,
        customer: paid.customer,
        customer_email: email,
        hosted_invoice_url: "https://invoice.stripe.com/i/acct_test/in_failedsecond1",
        parent: {
          type: "subscription_details",
          quote_details: null,
          subscription_details: { subscription, metadata: paid.metadata },
        },
      });
      const send = async (type: string, object: unknown, created: number) => {
        const body = { ...stripeEvent(type, object), created };
        const { payload, signature } = await signEvent(body, stack.stripe.webhookSecret);
        const response = await fetch(`${stack.url}/functions/v1/stripe-webhook`, {
          method: "POST",
          headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": signature },
          body: payload,
        });
        expect(response.status).toBe(200);
      };
      const paused = async () =>
        (await stack.db.query<{ paused: boolean }>("select public.plan_paused($1) as paused", [session.id])).rows[0]!
          .paused;
      const failures = () =>
        stack.mail.list().filter((m) => m.to === email && m.subject.includes("did not go through"));

      await send("invoice.payment_failed", invoice(1), now - 2 * DAY_S);
      expect(await paused()).toBe(false);
      const [notice, ...more] = failures();
      expect(more).toEqual([]);
      expect(notice!.subject).toBe("Your AI Advisor Accelerator payment of $6,000 did not go through");
      expect(notice!.text).toContain("https://invoice.stripe.com/i/acct_test/in_failedsecond1");
      // Stripe's retry, still failing, 14 days after it fell due (Stripe's time, as a test clock
      // moved ahead gives it): access pauses; no second e-mail.
      await send("invoice.payment_failed", invoice(3), now + 13 * DAY_S);
      expect(await paused()).toBe(true);
      expect(failures()).toHaveLength(1);
      // Paid on the invoice's page: access is back at once.
      await send("invoice.paid", invoice(4), now + 13 * DAY_S + 60);
      expect(await paused()).toBe(false);
      // An earlier failure delivered late changes nothing.
      await send("invoice.payment_failed", invoice(2), now + 5 * DAY_S);
      expect(await paused()).toBe(false);
      const { data } = await service
        .from("payment_plans")
        .select("paid_invoices, past_due_since")
        .eq("subscription_id", subscription)
        .single();
      expect(data).toEqual({ paid_invoices: [paid.invoice, "in_failedsecond1"], past_due_since: null });
      // A payment that is not the plan's next one (changed at Stripe, outside the product) is held
      // for review, as a checkout's would be, and counts for nothing.
      await send("invoice.paid", { ...invoice(1), id: "in_changedamount", amount_paid: 100 }, now + 20 * DAY_S);
      const { rows: reviews } = await stack.db.query<{ expected_amount: number; reason: string }>(
        "select expected_amount, reason from public.stripe_payment_reviews where checkout_session_id = $1",
        [session.id],
      );
      expect(reviews).toEqual([
        { expected_amount: 600000, reason: expect.stringMatching(/in_changedamount paid 100 usd/) },
      ]);
      const { data: after } = await service
        .from("payment_plans")
        .select("paid_invoices")
        .eq("subscription_id", subscription)
        .single();
      expect(after!.paid_invoices).toHaveLength(2);
    });

    it("on a test clock: a month on bills the second payment; a card that declines, set in the customer portal, fails the third, e-mails its page, pauses access 14 days on, and paying it there brings access back", async () => {
      // The applicant has an account already, so the test can ask the database as them.
      const email = "clock-applicant@example.com";
      expect(
        (await service.auth.admin.createUser({ email, password: "clock-buyer-2026", email_confirm: true })).error,
      ).toBeNull();
      const buyer = stack.client();
      expect((await buyer.auth.signInWithPassword({ email, password: "clock-buyer-2026" })).error).toBeNull();
      const mayRead = async () =>
        (await buyer.rpc("has_program_access", { p_product_key: "AI_ACCELERATOR" })).data as boolean;
      const { token } = await offerWith({ email });
      const session = await sessionOf((await choose(token, "plan:1")).body.url!);
      await payOnPage(session, TEST_CARD);
      await stack.stripe.idle();
      expect(await mayRead()).toBe(true);
      const paid = await stripe().checkout.sessions.retrieve(session.id);
      const subscription = paid.subscription as string;
      const customer = await stripe().customers.retrieve(paid.customer as string);
      const clockId = (customer as { test_clock: string | null }).test_clock!;
      expect(clockId).toMatch(/^clock_/);
      const DAY_S = 86400;
      const advance = async (days: number) => {
        const clock = await stripe().testHelpers.testClocks.retrieve(clockId);
        await stripe().testHelpers.testClocks.advance(clockId, { frozen_time: clock.frozen_time + days * DAY_S });
        await expect
          .poll(async () => (await stripe().testHelpers.testClocks.retrieve(clockId)).status, { timeout: 10_000 })
          .toBe("ready");
        await stack.stripe.idle();
      };
      const plan = async () =>
        (
          await service
            .from("payment_plans")
            .select("paid_invoices, past_due_since")
            .eq("subscription_id", subscription)
            .single()
        ).data!;
      const paused = async () =>
        (await stack.db.query<{ paused: boolean }>("select public.plan_paused($1) as paused", [session.id])).rows[0]!
          .paused;

      await advance(31);
      expect((await plan()).paid_invoices).toHaveLength(2);

      // The buyer opens the customer portal from purchase history and saves a card that will decline.
      const portal = await stripe().billingPortal.sessions.create({ customer: customer.id });
      const saved = await payOnPage(
        { url: `${portal.url}/payment-method` },
        { ...TEST_CARD, card_number: "4000 0000 0000 0341" },
      );
      expect(saved.status).toBe(303);
      // A day past the third payment's day: Stripe has billed it and tried the card.
      await advance(31);
      expect((await plan()).paid_invoices).toHaveLength(2);
      expect((await plan()).past_due_since).not.toBeNull();
      const notice = stack.mail.list().find((m) => m.to === email && m.subject.includes("did not go through"));
      const payUrl = /https?:\/\/\S+\/invoices?\/\S+/.exec(notice!.text)?.[0];
      expect(payUrl).toBeDefined();
      expect(await paused()).toBe(false);
      // Stripe's retries (3, 8 and 15 days after) fail too; 14 days after the payment fell due, access is paused.
      await advance(16);
      expect(await paused()).toBe(true);
      expect(await mayRead()).toBe(false);
      // Paid on the invoice's page with a good card: access returns at once.
      const [open] = (await stripe().invoices.list({ subscription, status: "open" })).data;
      expect((await payOnPage({ url: open!.hosted_invoice_url ?? null }, TEST_CARD)).status).toBe(303);
      await stack.stripe.idle();
      expect(await paused()).toBe(false);
      expect(await mayRead()).toBe(true);
      expect((await plan()).paid_invoices).toHaveLength(3);
    });

    it("Manage payment method: the buyer's own plan opens Stripe's customer portal, back to purchase history; none without a plan, nothing signed out", async () => {
      // An applicant with an account already: the webhook adds the plan to it.
      const email = "portal-applicant@example.com";
      const made = await service.auth.admin.createUser({ email, password: "plan-buyer-2026", email_confirm: true });
      expect(made.error).toBeNull();
      const { token } = await offerWith({ email });
      const session = await sessionOf((await choose(token, "plan:1")).body.url!);
      await payOnPage(session, TEST_CARD);
      await stack.stripe.idle();
      const buyer = stack.client();
      expect((await buyer.auth.signInWithPassword({ email, password: "plan-buyer-2026" })).error).toBeNull();
      const opened = await buyer.functions.invoke<{ url: string }>("billing-portal", { body: {} });
      expect(opened.error).toBeNull();
      const portal = await fetch(opened.data!.url);
      expect(portal.status).toBe(200);
      const page = await portal.text();
      expect(page).toContain("/portal/settings/purchase-history");

      const without = await users.buyer!.client.functions.invoke("billing-portal", { body: {} });
      expect((without.error as { context?: Response }).context!.status).toBe(404);
      const signedOut = await stack.client().functions.invoke("billing-portal", { body: {} });
      expect((signedOut.error as { context?: Response }).context!.status).toBe(401);
    });

    it("the AI offer's membership: said on Stripe's page, started at Stripe for its day on the card paid with, and billed from that day on the buyer's clock", async () => {
      const { token, id } = await offerWith();
      const session = await sessionOf((await choose(token, "in_full")).body.url!);
      const startsOn = offerPayment(ai, ai.priceCents, "2027-01-11")!.membership!.startsOn;
      expect(session.custom_text?.submit?.message).toBe(
        `Your $450 monthly membership starts on ${formatDay(startsOn)} and is charged to this card each month; you can cancel it at any time from your portal.`,
      );
      await payOnPage(session, TEST_CARD);
      await stack.stripe.idle();
      const { data: membership } = await service
        .from("memberships")
        .select("schedule_id, monthly_cents, starts_on, checkout_session_id, subscription_id")
        .eq("offer_id", id)
        .single();
      expect(membership).toMatchObject({
        monthly_cents: 45000,
        starts_on: startsOn,
        checkout_session_id: session.id,
        subscription_id: null,
      });
      const schedule = await stripe().subscriptionSchedules.retrieve(membership!.schedule_id);
      const paid = await stripe().checkout.sessions.retrieve(session.id, { expand: ["payment_intent"] });
      expect(schedule).toMatchObject({
        status: "not_started",
        end_behavior: "release",
        default_settings: {
          default_payment_method: (paid.payment_intent as { payment_method: string }).payment_method,
        },
      });
      expect(new Date(schedule.phases[0]!.start_date * 1000).toISOString().slice(0, 10)).toBe(startsOn);
      expect(schedule.phases[0]!.items[0]!.price).toMatch(/^price_/);

      // On the buyer's clock, two months at a time (Stripe's limit) until the membership's day.
      const customer = (await stripe().customers.retrieve(paid.customer as string)) as { test_clock: string };
      const startsAt = Date.parse(`${startsOn}T12:00:00Z`) / 1000;
      for (;;) {
        const clock = await stripe().testHelpers.testClocks.retrieve(customer.test_clock);
        if (clock.frozen_time > startsAt + 3600) break;
        await stripe().testHelpers.testClocks.advance(customer.test_clock, {
          frozen_time: Math.min(clock.frozen_time + 59 * 86400, startsAt + 2 * 3600),
        });
        await expect
          .poll(async () => (await stripe().testHelpers.testClocks.retrieve(customer.test_clock)).status)
          .toBe("ready");
      }
      await stack.stripe.idle();
      const { data: started } = await service.from("memberships").select("subscription_id").eq("offer_id", id).single();
      expect(started!.subscription_id).toMatch(/^sub_/);
      const [invoice] = (await stripe().invoices.list({ subscription: started!.subscription_id! })).data;
      expect(invoice).toMatchObject({ status: "paid", amount_paid: 45000 });
      // Cancelled (in the customer portal, or here through the API): its end is recorded.
      await stripe().subscriptions.cancel(started!.subscription_id!);
      await stack.stripe.idle();
      const { data: ended } = await service.from("memberships").select("ended_at").eq("offer_id", id).single();
      expect(ended!.ended_at).not.toBeNull();
    });
  });
});
