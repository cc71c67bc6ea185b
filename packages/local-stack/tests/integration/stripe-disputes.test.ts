/**
 * Disputes in the local stack's Stripe stand-in (packages/local-stack/src/stripe/disputes.ts),
 * driven as packages/local-stack/tests/integration/stripe.test.ts drives the rest: the dispute
 * test cards paid on the hosted page, the events a fixture `stripe-webhook` function verifies with
 * the real `stripe` library, and the Disputes API through that library (retrieve, list, update
 * with evidence, close). Each test names the Stripe rule it pins: docs: Testing, Disputes (the
 * cards and the `winning_evidence` / `losing_evidence` values); API reference, Disputes (update's
 * `submit`, close); stripe-node 23.1 `resources/Disputes.d.ts` and `resources/Events.d.ts` (the
 * object's fields and each event's meaning), read from the installed library so the shapes stay
 * pinned to the version the project uses. The stand-in keeps its state in files, so one backend
 * (PGlite) suffices.
 */
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack } from "../../src/harness.ts";
import { accountIdOf } from "../../src/stripe/receipts.ts";
import { payOnPage, TEST_CARD as CARD } from "../../../../tests/support/stripe-events.ts";
import { declared, undeclared } from "../support/stripe-declared.ts";
import { stripeClient, stripeFixture } from "../support/stripe-fixture.ts";

// The webhook as the product's is: the raw body verified with constructEventAsync, then kept.
const fixture = stripeFixture("stripe-disputes-");
const { functionsDir } = fixture;
const received = fixture.received;

/** The events about a payment's dispute and fraud warnings, by type, in no particular order (webhooks: no ordering guarantee). */
const disputeEvents = (intent: string) =>
  received()
    .filter((r) => r.object.payment_intent === intent && /^(charge\.dispute|radar)\./.test(r.type))
    .map((r) => r.type)
    .sort();

describe("Stripe stand-in disputes", () => {
  let stack: TestStack;
  let stripe: Stripe;
  let price: Stripe.Price;

  beforeAll(async () => {
    stack = await startTestStack(
      { name: "PGlite" },
      {
        seed: false,
        functionsDir,
        config: { functions: { "stripe-webhook": { verifyJwt: false } } },
        stripe: { catalogue: false, retryDelaysMs: [300], timeoutMs: 2_000, disputeDecisionDelayMs: 300 },
      },
    );
    stripe = stripeClient(stack);
    const product = await stripe.products.create({ name: "Growth Mindset Mastery" });
    price = await stripe.prices.create({ product: product.id, unit_amount: 30_000, currency: "usd" });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    fixture.cleanup();
  });

  /** Pays a new session on the hosted page with the test card, and answers its PaymentIntent and charge. */
  async function payWith(cardNumber: string, email = "buyer@example.com") {
    const session = await stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [{ price: price.id, quantity: 1 }],
      customer_email: email,
      success_url: `${stack.url}/thank-you?session_id={CHECKOUT_SESSION_ID}`,
    });
    const paid = await payOnPage(session, { ...CARD, card_number: cardNumber });
    expect(paid.status).toBe(303);
    const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent.latest_charge"] });
    const intent = done.payment_intent as Stripe.PaymentIntent;
    return { session: done, intent, charge: intent.latest_charge as Stripe.Charge };
  }

  /** The one dispute of a PaymentIntent, as the API lists it. */
  const disputeOf = async (intent: string) => {
    const { data } = await stripe.disputes.list({ payment_intent: intent });
    expect(data).toHaveLength(1);
    return data[0]!;
  };

  it("pays 4000 0000 0000 0259, then disputes it as fraudulent: charge.dispute.created and charge.dispute.funds_withdrawn, needs_response, the amount and the fee withdrawn (Testing: Disputes, Fraudulent; Events: funds_withdrawn)", async () => {
    const { session, intent, charge } = await payWith("4000 0000 0000 0259");
    // "With default account settings, charge succeeds, only to be disputed as fraudulent."
    expect(session).toMatchObject({ status: "complete", payment_status: "paid" });
    expect(intent.status).toBe("succeeded");
    expect(charge).toMatchObject({ status: "succeeded", paid: true, disputed: true });
    await stack.stripe.idle();
    expect(disputeEvents(intent.id)).toEqual(["charge.dispute.created", "charge.dispute.funds_withdrawn"]);
    const created = received().find(
      (r) => r.type === "charge.dispute.created" && r.object.payment_intent === intent.id,
    )!;
    const dispute = created.object;
    expect(dispute).toMatchObject({
      id: expect.stringMatching(/^du_\w{24}$/),
      object: "dispute",
      amount: 30_000,
      currency: "usd",
      charge: charge.id,
      payment_intent: intent.id,
      reason: "fraudulent",
      status: "needs_response",
      is_charge_refundable: false,
      livemode: false,
      metadata: {},
      enhanced_eligibility_types: [],
      intended_submission_method: null,
      payment_method_details: { type: "card", card: { brand: "visa", case_type: "chargeback", network: "visa" } },
      evidence_details: {
        has_evidence: false,
        past_due: false,
        submission_count: 0,
        submission_method: "not_submitted",
      },
    });
    // Every evidence field starts empty.
    const { enhanced_evidence, ...evidence } = dispute.evidence as Record<string, unknown>;
    expect(enhanced_evidence).toEqual({});
    expect(Object.values(evidence).every((value) => value === null)).toBe(true);
    expect((dispute.evidence_details as { due_by: number }).due_by).toBeGreaterThan(Date.now() / 1000 + 7 * 86_400);
    // "List of zero, one, or two balance transactions that show funds withdrawn and reinstated."
    expect(dispute.balance_transactions).toEqual([
      expect.objectContaining({
        object: "balance_transaction",
        amount: -30_000,
        fee: 1_500,
        net: -31_500,
        type: "adjustment",
        reporting_category: "dispute",
        source: dispute.id,
      }),
    ]);
    // The API answers the dispute as the events showed it, and finds it by charge and by PaymentIntent.
    expect(await stripe.disputes.retrieve(dispute.id as string)).toEqual(dispute);
    expect((await stripe.disputes.list({ charge: charge.id })).data.map((d) => d.id)).toEqual([dispute.id]);
    expect((await stripe.disputes.list({ payment_intent: intent.id })).data.map((d) => d.id)).toEqual([dispute.id]);
    expect((await stripe.disputes.list({ charge: "ch_other" })).data).toEqual([]);
    const expanded = await stripe.disputes.retrieve(dispute.id as string, { expand: ["charge"] });
    expect(expanded.charge).toMatchObject({ id: charge.id, disputed: true });
    // A charged-back charge is not refundable: the network has the money (error code charge_disputed).
    const refund = await stripe.refunds.create({ payment_intent: intent.id }).catch((e: unknown) => e);
    expect(refund).toMatchObject({
      statusCode: 400,
      type: "StripeInvalidRequestError",
      code: "charge_disputed",
      message: `Charge ${charge.id} has been charged back; cannot issue a refund.`,
    });
  });

  it("answers with stripe-node's declared shapes: Dispute, its evidence and evidence_details, its balance transactions, the early fraud warning (resources/Disputes.d.ts, BalanceTransactions.d.ts, Radar/EarlyFraudWarnings.d.ts)", async () => {
    const { intent } = await payWith("4000000000000259");
    const dispute = await disputeOf(intent.id);
    const none = { unknown: [], missing: [] };
    expect(undeclared(dispute, "Disputes.d.ts", "Dispute")).toEqual(none);
    expect(undeclared(dispute.evidence, "Disputes.d.ts", "Dispute", "Evidence")).toEqual(none);
    expect(undeclared(dispute.evidence_details, "Disputes.d.ts", "Dispute", "EvidenceDetails")).toEqual(none);
    expect(undeclared(dispute.payment_method_details, "Disputes.d.ts", "Dispute", "PaymentMethodDetails")).toEqual(
      none,
    );
    expect(
      undeclared(dispute.payment_method_details!.card, "Disputes.d.ts", "Dispute", "PaymentMethodDetails", "Card"),
    ).toEqual(none);
    expect(undeclared(dispute.balance_transactions[0], "BalanceTransactions.d.ts", "BalanceTransaction")).toEqual(none);
    // Every evidence field the API takes is one the object shows (Dispute update `evidence`).
    const taken = declared("Disputes.d.ts", "DisputeUpdateParams", "Evidence");
    expect([...taken.required, ...taken.optional].filter((f) => !(f in dispute.evidence))).toEqual(["appeal"]);
    const warned = await payWith("4000000000005423");
    await stack.stripe.idle();
    const warning = received().find(
      (r) => r.type === "radar.early_fraud_warning.created" && r.object.payment_intent === warned.intent.id,
    )!;
    expect(undeclared(warning.object, "Radar/EarlyFraudWarnings.d.ts", "EarlyFraudWarning")).toEqual(none);
  });

  it("wins with winning_evidence: the update submits it (submit defaults to true), under_review with charge.dispute.updated, then closed won with the funds reinstated (Testing: Disputes, Evidence; Dispute update `submit`)", async () => {
    const { intent, charge } = await payWith("4000000000000259");
    const dispute = await disputeOf(intent.id);
    const updated = await stripe.disputes.update(dispute.id, {
      evidence: { uncategorized_text: "winning_evidence", customer_name: "Ada Buyer" },
      metadata: { order: "A-1" },
    });
    expect(updated).toMatchObject({
      status: "under_review",
      metadata: { order: "A-1" },
      evidence: { uncategorized_text: "winning_evidence", customer_name: "Ada Buyer", product_description: null },
      evidence_details: { has_evidence: true, submission_count: 1, submission_method: "manual", past_due: false },
    });
    await stack.stripe.idle();
    // "The dispute is closed and marked as won. Your account is credited the amount of the charge and related fees."
    const won = await stripe.disputes.retrieve(dispute.id);
    expect(won.status).toBe("won");
    expect(won.balance_transactions.map((t) => [t.amount, t.fee, t.net, t.reporting_category])).toEqual([
      [-30_000, 1_500, -31_500, "dispute"],
      [30_000, -1_500, 31_500, "dispute_reversal"],
    ]);
    expect(disputeEvents(intent.id)).toEqual([
      "charge.dispute.closed",
      "charge.dispute.created",
      "charge.dispute.funds_reinstated",
      "charge.dispute.funds_withdrawn",
      "charge.dispute.updated",
    ]);
    const about = received().filter((r) => r.object.id === dispute.id);
    const update = about.find((r) => r.type === "charge.dispute.updated")!;
    expect(update.object).toMatchObject({ status: "under_review" });
    // "previous_attributes": what the update changed, as it was.
    expect(update.previous).toEqual({
      evidence: { customer_name: null, uncategorized_text: null },
      evidence_details: { has_evidence: false, submission_count: 0, submission_method: "not_submitted" },
      metadata: {},
      status: "needs_response",
    });
    for (const type of ["charge.dispute.closed", "charge.dispute.funds_reinstated"]) {
      expect(about.find((r) => r.type === type)!.object).toMatchObject({ status: "won", charge: charge.id });
    }
    // A closed dispute's evidence cannot change; its charge stays disputed.
    const again = await stripe.disputes
      .update(dispute.id, { evidence: { uncategorized_text: "more" } })
      .catch((e: unknown) => e);
    expect(again).toMatchObject({ statusCode: 400, type: "StripeInvalidRequestError" });
    expect((again as Error).message).toContain("already closed");
    expect((await stripe.charges.retrieve(charge.id)).disputed).toBe(true);
  });

  it("loses with losing_evidence: closed lost, nothing reinstated; 4000 0000 0000 2685 is disputed as product_not_received (Testing: Disputes, Not received, Evidence)", async () => {
    const { intent } = await payWith("4000000000002685");
    const dispute = await disputeOf(intent.id);
    expect(dispute).toMatchObject({
      reason: "product_not_received",
      status: "needs_response",
      network_reason_code: "13.1",
    });
    await stripe.disputes.update(dispute.id, { evidence: { uncategorized_text: "losing_evidence" } });
    await stack.stripe.idle();
    // "The dispute is closed and marked as lost. Your account isn't credited."
    const lost = await stripe.disputes.retrieve(dispute.id);
    expect(lost.status).toBe("lost");
    expect(lost.balance_transactions).toHaveLength(1);
    expect(disputeEvents(intent.id)).toEqual([
      "charge.dispute.closed",
      "charge.dispute.created",
      "charge.dispute.funds_withdrawn",
      "charge.dispute.updated",
    ]);
  });

  it("stages evidence with submit=false, and submits it with a later update (Dispute update: 'If false, evidence is staged on the dispute … submitted to the bank by making another request with this attribute set to true')", async () => {
    const { intent } = await payWith("4000000000000259");
    const dispute = await disputeOf(intent.id);
    const staged = await stripe.disputes.update(dispute.id, {
      evidence: { uncategorized_text: "winning_evidence" },
      submit: false,
    });
    expect(staged).toMatchObject({
      status: "needs_response",
      evidence_details: { has_evidence: true, submission_count: 0 },
    });
    await stack.stripe.idle();
    expect((await stripe.disputes.retrieve(dispute.id)).status).toBe("needs_response");
    const submitted = await stripe.disputes.update(dispute.id, { submit: true });
    expect(submitted).toMatchObject({ status: "under_review", evidence_details: { submission_count: 1 } });
    // Submitted evidence is final.
    const change = await stripe.disputes
      .update(dispute.id, { evidence: { customer_name: "Someone" } })
      .catch((e: unknown) => e);
    expect(change).toMatchObject({ statusCode: 400, param: "evidence" });
    await stack.stripe.idle();
    expect((await stripe.disputes.retrieve(dispute.id)).status).toBe("won");
  });

  it("closes a dispute as lost: charge.dispute.closed; closing it again is refused; an unknown id is 404 resource_missing (Dispute close: 'The status of the dispute will change from needs_response to lost')", async () => {
    const { intent } = await payWith("4000000000000259");
    const dispute = await disputeOf(intent.id);
    const closed = await stripe.disputes.close(dispute.id);
    expect(closed).toMatchObject({ id: dispute.id, status: "lost" });
    await stack.stripe.idle();
    expect(disputeEvents(intent.id)).toEqual([
      "charge.dispute.closed",
      "charge.dispute.created",
      "charge.dispute.funds_withdrawn",
    ]);
    const twice = await stripe.disputes.close(dispute.id).catch((e: unknown) => e);
    expect(twice).toMatchObject({ statusCode: 400, type: "StripeInvalidRequestError" });
    const unknown = await stripe.disputes.retrieve("du_unknown").catch((e: unknown) => e);
    expect(unknown).toMatchObject({
      statusCode: 404,
      code: "resource_missing",
      param: "id",
      message: "No such dispute: 'du_unknown'",
    });
    expect(await stripe.disputes.close("du_unknown").catch((e: unknown) => e)).toMatchObject({ statusCode: 404 });
    expect(await stripe.disputes.update("du_unknown", {}).catch((e: unknown) => e)).toMatchObject({ statusCode: 404 });
    // What the stand-in cannot take is refused, naming it: it has no file uploads.
    const file = await stripe.disputes
      .update(dispute.id, { evidence: { receipt: "file_123" } })
      .catch((e: unknown) => e);
    expect(file).toMatchObject({ statusCode: 400, param: "evidence[receipt]" });
    const unknownField = await stripe.disputes
      .update(dispute.id, { evidence: { colour: "red" } } as unknown as Stripe.DisputeUpdateParams)
      .catch((e: unknown) => e);
    expect(unknownField).toMatchObject({ code: "parameter_unknown", param: "evidence[colour]" });
  });

  it("disputes 4000 0000 0000 1976 as an inquiry: warning_needs_response, still refundable, no funds withdrawn; winning evidence closes it as warning_closed (Testing: Disputes, Inquiry; Events: charge.dispute.closed)", async () => {
    const { intent, charge } = await payWith("4000000000001976");
    const inquiry = await disputeOf(intent.id);
    expect(inquiry).toMatchObject({
      status: "warning_needs_response",
      reason: "fraudulent",
      is_charge_refundable: true,
      balance_transactions: [],
      payment_method_details: { card: { case_type: "inquiry" } },
    });
    expect(charge.disputed).toBe(true);
    const submitted = await stripe.disputes.update(inquiry.id, {
      evidence: { uncategorized_text: "winning_evidence" },
    });
    expect(submitted.status).toBe("warning_under_review");
    await stack.stripe.idle();
    expect((await stripe.disputes.retrieve(inquiry.id)).status).toBe("warning_closed");
    expect(disputeEvents(intent.id)).toEqual([
      "charge.dispute.closed",
      "charge.dispute.created",
      "charge.dispute.updated",
    ]);
    // An inquiry has not taken the money back: the charge can still be refunded.
    expect(await stripe.refunds.create({ payment_intent: intent.id })).toMatchObject({ status: "succeeded" });
  });

  it("sends radar.early_fraud_warning.created for 4000 0000 0000 5423, and opens no dispute (Testing: Disputes, Warning)", async () => {
    const { intent, charge } = await payWith("4000000000005423");
    await stack.stripe.idle();
    expect(disputeEvents(intent.id)).toEqual(["radar.early_fraud_warning.created"]);
    const warning = received().find(
      (r) => r.type === "radar.early_fraud_warning.created" && r.object.payment_intent === intent.id,
    )!;
    expect(warning.object).toMatchObject({
      id: expect.stringMatching(/^issfr_/),
      object: "radar.early_fraud_warning",
      actionable: true,
      charge: charge.id,
      payment_intent: intent.id,
      livemode: false,
    });
    expect(charge.disputed).toBe(false);
    expect((await stripe.disputes.list({ payment_intent: intent.id })).data).toEqual([]);
  });

  it("reaches disputes with a restricted key's Disputes permission only: Read lists and retrieves, Write updates; DEPLOY.md's functions key has none (Security, Permissions)", async () => {
    const { intent } = await payWith("4000000000000259");
    const dispute = await disputeOf(intent.id);
    const keyed = (key: string) => stripeClient(stack, key);
    const readKey = stack.stripe.restrictedKey({ Disputes: "read" });
    const reader = keyed(readKey);
    expect((await reader.disputes.retrieve(dispute.id)).id).toBe(dispute.id);
    expect((await reader.disputes.list({ payment_intent: intent.id })).data).toHaveLength(1);
    const write = await reader.disputes.update(dispute.id, { metadata: { a: "b" } }).catch((e: unknown) => e);
    const account = accountIdOf(stack.stripe.secretKey);
    expect(write).toMatchObject({
      statusCode: 403,
      code: "more_permissions_required",
      message: `Permission denied. The provided key 'rk_test_${"*".repeat(93)}${readKey.slice(-6)}' does not have the required permissions for this endpoint on account '${account}'. Enabling Disputes Write ('dispute_write') permissions on this key would allow this request to continue. You can edit permissions at ${stack.stripe.dashboardUrl}`,
    });
    expect((await keyed(stack.stripe.restrictedKey({ Disputes: "write" })).disputes.close(dispute.id)).status).toBe(
      "lost",
    );
    const functions = await keyed(stack.stripe.functionsKey)
      .disputes.retrieve(dispute.id)
      .catch((e: unknown) => e);
    expect(functions).toMatchObject({ statusCode: 403, code: "more_permissions_required" });
    expect((functions as Error).message).toContain("Enabling Disputes Read ('dispute_read')");
  });

  it("shows a payment's dispute on its session's row of the dashboard, without a Refund button", async () => {
    const { session } = await payWith("4000000000000259");
    const html = await (await fetch(stack.stripe.dashboardUrl)).text();
    const row = html.slice(html.indexOf(session.id));
    const end = row.indexOf("</tr>");
    expect(row.slice(0, end)).toContain("disputed (fraudulent): needs_response");
    expect(row.slice(0, end)).toContain("charge.dispute.created");
    expect(row.slice(0, end)).not.toContain(">Refund<");
  });
});
