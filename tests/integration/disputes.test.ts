/**
 * Disputes through the whole local stack, on PGlite and PostgreSQL: a buyer pays on the Stripe
 * stand-in's hosted page with Stripe's dispute test cards, the stand-in opens the dispute and
 * delivers its signed events to the real webhook (functions/stripe-webhook), and the business
 * answers with Stripe's documented `winning_evidence` / `losing_evidence`. What the buyer keeps and
 * what the business is told: a chargeback holds the order (no access) and e-mails the business once;
 * won gives access back; lost keeps it closed; an inquiry changes nothing; events in any order or
 * twice change nothing more; a forged or foreign dispute event changes nothing.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutRequest } from "../../packages/shared/checkout-request.ts";
import { stripeClient } from "../../functions/_shared/stripe.ts";
import { BUSINESS_EMAIL } from "../../functions/_shared/catalogue.ts";
import { BACKENDS, startTestStack, type TestStack } from "@advisor-accelerator/local-stack";
import { payOnPage, signEvent, stripeEvent, stripeId, TEST_CARD } from "../support/stripe-events.ts";
import { logTallies, Tally } from "../support/hostile.ts";

const SITE = "http://localhost:4321";
const GROWTH = { checkoutKey: "GROWTH_MINDSET", stripeLookupKey: "growth_mindset" };
/** Stripe's dispute test cards (docs.stripe.com/testing, "Disputes"). */
const FRAUDULENT = "4000 0000 0000 0259";
const NOT_RECEIVED = "4000 0000 0000 2685";
const INQUIRY = "4000 0000 0000 1976";

let serial = 0;
const buyer = (name: string) => `${name}.${Date.now().toString(36)}${serial++}@example.com`;

describe.each(BACKENDS)("disputes on $name", (backend) => {
  let stack: TestStack;
  let stripe: Stripe;
  const hostile = new Tally("dispute events");

  beforeAll(async () => {
    stack = await startTestStack(backend, { seed: false, stripe: { disputeDecisionDelayMs: 200 } });
    stripe = stripeClient({ STRIPE_SECRET_KEY: stack.stripe.secretKey, STRIPE_API_URL: stack.url });
  }, 60_000);
  afterAll(async () => {
    logTallies(hostile);
    await stack?.stop();
  });

  /** Buys Growth Mindset Mastery on the hosted page with `card`; answers the session and its dispute. */
  async function buyWith(email: string, card: string) {
    const response = await fetch(`${stack.url}/functions/v1/stripe-checkout`, {
      method: "POST",
      headers: { origin: SITE, "content-type": "application/json", apikey: stack.anonKey },
      body: JSON.stringify(checkoutRequest(SITE, GROWTH, email)),
    });
    const { url } = (await response.json()) as { url: string };
    const session = await stripe.checkout.sessions.retrieve(/cs_test_[A-Za-z0-9]+/.exec(url)![0]);
    expect((await payOnPage(session, { ...TEST_CARD, card_number: card })).status).toBe(303);
    await stack.stripe.idle();
    const paid = await stripe.checkout.sessions.retrieve(session.id);
    // Stripe opens the dispute a moment after the payment; then its events are delivered.
    const disputes = () => stripe.disputes.list({ payment_intent: paid.payment_intent as string });
    await expect.poll(async () => (await disputes()).data.length, { timeout: 10_000 }).toBe(1);
    await stack.stripe.idle();
    return { session: paid, dispute: (await disputes()).data[0]! };
  }

  const orderStatus = async (sessionId: string) =>
    (
      await stack.db.query<{ status: string }>(
        "select status::text from public.stripe_orders where checkout_session_id = $1",
        [sessionId],
      )
    ).rows[0]?.status;
  const disputeRow = async (id: string) =>
    (
      await stack.db.query<{ status: string; notified_at: string | null }>(
        "select status, notified_at from public.stripe_disputes where dispute_id = $1",
        [id],
      )
    ).rows[0];
  /** Whether the order's buyer may read its program now (the member area's rule). */
  const hasAccess = async (sessionId: string) =>
    (
      await stack.db.query<{ access: boolean }>(
        `select exists (select 1 from public.stripe_orders where checkout_session_id = $1 and status = 'completed') as access`,
        [sessionId],
      )
    ).rows[0]!.access;
  const disputeMails = (email: string) =>
    stack.mail.list().filter((m) => m.to === BUSINESS_EMAIL && m.subject.includes(email));
  const deliver = async (body: unknown) => {
    const { payload, signature } = await signEvent(body, stack.stripe.webhookSecret);
    return fetch(`${stack.url}/functions/v1/stripe-webhook`, {
      method: "POST",
      headers: { "stripe-signature": signature, "content-type": "application/json" },
      body: payload,
    });
  };

  it("a chargeback holds the order and tells the business once; winning_evidence gives the buyer access back", async () => {
    const email = buyer("won");
    const { session, dispute } = await buyWith(email, FRAUDULENT);
    expect(dispute).toMatchObject({ status: "needs_response", reason: "fraudulent" });
    expect(await orderStatus(session.id)).toBe("disputed");
    expect(await hasAccess(session.id)).toBe(false);
    const told = disputeMails(email);
    expect(told.map((m) => m.subject)).toEqual([`Payment disputed: Growth Mindset Mastery, ${email}`]);
    expect(told[0]!.text).toContain(`npm run stripe:dispute -- ${dispute.id} --submit`);
    expect(told[0]!.text).toContain("Access to the program is paused until the dispute closes");
    expect((await disputeRow(dispute.id))?.notified_at).not.toBeNull();

    // The business answers with Stripe's test value that wins.
    await stripe.disputes.update(dispute.id, { evidence: { uncategorized_text: "winning_evidence" } });
    await expect.poll(async () => (await disputeRow(dispute.id))?.status, { timeout: 10_000 }).toBe("won");
    await stack.stripe.idle();
    expect(await orderStatus(session.id)).toBe("completed");
    expect(await hasAccess(session.id)).toBe(true);
    // Still one e-mail for the dispute, whatever its later events.
    expect(disputeMails(email)).toHaveLength(1);
  });

  it("losing_evidence: the dispute is lost and access stays closed", async () => {
    const email = buyer("lost");
    const { session, dispute } = await buyWith(email, NOT_RECEIVED);
    expect(dispute.reason).toBe("product_not_received");
    await stripe.disputes.update(dispute.id, { evidence: { uncategorized_text: "losing_evidence" } });
    await expect.poll(async () => (await disputeRow(dispute.id))?.status, { timeout: 10_000 }).toBe("lost");
    expect(await orderStatus(session.id)).toBe("disputed");
    expect(await hasAccess(session.id)).toBe(false);
  });

  it("an inquiry tells the business and leaves the buyer's access alone", async () => {
    const email = buyer("inquiry");
    const { session, dispute } = await buyWith(email, INQUIRY);
    expect(dispute.status).toBe("warning_needs_response");
    expect(await orderStatus(session.id)).toBe("completed");
    expect(await hasAccess(session.id)).toBe(true);
    expect(disputeMails(email).map((m) => m.subject)).toEqual([`Payment inquiry: Growth Mindset Mastery, ${email}`]);
  });

  it("events in any order, or twice, keep the order's status true", async () => {
    const email = buyer("order");
    const { session, dispute } = await buyWith(email, FRAUDULENT);
    const { data: events } = await stripe.events.list({ limit: 100 });
    const about = events.filter((e) => (e.data.object as { id?: string }).id === dispute.id);
    const created = about.find((e) => e.type === "charge.dispute.created")!;
    // The decision arrives before an older event is delivered again: won stays won.
    const won = stripeEvent("charge.dispute.closed", { ...dispute, status: "won" });
    expect((await deliver(won)).status).toBe(200);
    expect(await orderStatus(session.id)).toBe("completed");
    const again = await deliver(created);
    expect(again.status).toBe(200);
    const late = stripeEvent("charge.dispute.funds_withdrawn", { ...dispute, status: "needs_response" });
    (late as { created: number }).created -= 60;
    expect((await deliver(late)).status).toBe(200);
    expect((await disputeRow(dispute.id))?.status).toBe("won");
    expect(await orderStatus(session.id)).toBe("completed");
    // A checkout event delivered late does not undo a dispute either.
    const lost = stripeEvent("charge.dispute.closed", { ...dispute, id: stripeId("du"), status: "lost" });
    expect((await deliver(lost)).status).toBe(200);
    expect(await orderStatus(session.id)).toBe("disputed");
    const completed = events.find(
      (e) => e.type === "checkout.session.completed" && (e.data.object as { id: string }).id === session.id,
    )!;
    expect((await deliver({ ...completed, id: stripeId("evt") })).status).toBe(200);
    expect(await orderStatus(session.id)).toBe("disputed");
  });

  it("a forged dispute event, or one about a payment that is not ours, changes nothing", async () => {
    const email = buyer("forged");
    const { session, dispute } = await buyWith(email, FRAUDULENT);
    await stripe.disputes.update(dispute.id, { evidence: { uncategorized_text: "winning_evidence" } });
    await expect.poll(async () => await orderStatus(session.id), { timeout: 10_000 }).toBe("completed");
    // Signed with another secret: refused, the order untouched.
    const lost = stripeEvent("charge.dispute.closed", { ...dispute, id: stripeId("du"), status: "lost" });
    const { payload, signature } = await signEvent(lost, "whsec_not_the_endpoints_secret");
    const forged = await fetch(`${stack.url}/functions/v1/stripe-webhook`, {
      method: "POST",
      headers: { "stripe-signature": signature, "content-type": "application/json" },
      body: payload,
    });
    hostile.count(forged.status < 300);
    expect(forged.status).toBe(400);
    expect(await orderStatus(session.id)).toBe("completed");
    // A dispute of a payment this site did not take: acknowledged, and nothing recorded.
    const foreign = stripeEvent("charge.dispute.created", {
      ...dispute,
      id: stripeId("du"),
      payment_intent: stripeId("pi"),
      status: "needs_response",
    });
    const answered = await deliver(foreign);
    expect(answered.status).toBe(200);
    const recorded = await disputeRow((foreign.data.object as { id: string }).id);
    hostile.count(recorded !== undefined);
    expect(recorded).toBeUndefined();
  });

  it("npm run stripe:dispute prints the evidence the product holds, and --submit sends it to Stripe", async () => {
    const email = buyer("evidence");
    const { session, dispute } = await buyWith(email, FRAUDULENT);
    // The buyer signed in to the portal once (Auth keeps the session with its address and browser).
    const link = await stack.admin().auth.admin.generateLink({ type: "recovery", email });
    const signedIn = await stack
      .client()
      .auth.verifyOtp({ token_hash: link.data.properties!.hashed_token, type: "recovery" });
    expect(signedIn.error).toBeNull();
    const run = (...args: string[]) =>
      promisify(execFile)(
        process.execPath,
        [join(import.meta.dirname, "../../scripts/stripe.ts"), "dispute", ...args],
        {
          env: {
            ...process.env,
            STRIPE_SECRET_KEY: stack.stripe.secretKey,
            STRIPE_API_URL: stack.url,
            SUPABASE_URL: stack.url,
            SUPABASE_SERVICE_ROLE_KEY: stack.serviceKey,
            SITE_URL: SITE,
          },
        },
      );
    const printed = (await run(dispute.id)).stdout;
    expect(printed).toContain(`Dispute ${dispute.id}: needs_response, reason fraudulent`);
    expect(printed).toMatch(
      /Purchase: \d{4}-\d\d-\d\d \d\d:\d\d UTC, Growth Mindset Mastery, \$300 \(order [0-9A-F]{8}\)/,
    );
    expect(printed).toMatch(
      /Sign-ins to the client portal \(time, address, browser\):\n {2}\d{4}-\d\d-\d\d \d\d:\d\d UTC {2}127\.0\.0\.1/,
    );
    expect(printed).toContain('"Refund policy: if the program is not right for you, e-mail us within 30 days');
    expect(printed).toContain(`${SITE}/terms-of-service`);
    expect(printed).toContain(`npm run stripe:dispute -- ${dispute.id} --submit`);
    // Printing sends nothing.
    expect((await stripe.disputes.retrieve(dispute.id)).evidence.access_activity_log).toBeNull();

    const sent = (await run(dispute.id, "--submit")).stdout;
    expect(sent).toContain("Sent to Stripe: the dispute is under_review.");
    const at = await stripe.disputes.retrieve(dispute.id);
    expect(at.evidence.access_activity_log).toContain("127.0.0.1");
    expect(at.evidence.customer_email_address).toBe(email);
    expect(at.evidence.service_date).toBe(new Date(session.created * 1000).toISOString().slice(0, 10));
    expect(at.evidence_details.submission_count).toBe(1);
    const { rows } = await stack.db.query<{ evidence_submitted_at: string | null }>(
      "select evidence_submitted_at from public.stripe_disputes where dispute_id = $1",
      [dispute.id],
    );
    expect(rows[0]!.evidence_submitted_at).not.toBeNull();
    // An id that is not a dispute's is refused before anything is asked.
    await expect(run("cs_test_a1notadispute")).rejects.toMatchObject({
      stderr: expect.stringContaining("Give the dispute's id"),
    });
  });
});
