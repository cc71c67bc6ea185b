// The commerce part of `npm run bench`, on the local stack (PGlite and a throw-away PostgreSQL
// server, through the tests' harness) with its Stripe stand-in:
//   - checkout latency: the `stripe-checkout` function called as the checkout page calls it
//     (POST /functions/v1/stripe-checkout with the anon key), one at a time; each call makes the
//     real `stripe` library's requests to the stand-in (price, customer, session);
//   - webhook throughput: signed `checkout.session.completed` events, each a new buyer (account,
//     invite e-mail, customer, order), 8 in flight, after 50 untimed warm-up deliveries; then every
//     order and account is counted, warm-ups included, so a lost or failed event can never pass
//     for a fast one.
// Targets (docs/architecture.md): checkout p95 <= 50 ms; >= 200 events/s on PostgreSQL, >= 50 on
// PGlite, zero lost.
import { randomBytes } from "node:crypto";
import type { TestStack } from "@advisor-accelerator/local-stack";
import {
  type BackendOutcome,
  BUYING_STACK,
  forEachBackend,
  type LatencySummary,
  percentile,
  summarize,
} from "./backend.ts";
import { budgetEntry, type BudgetResult } from "./budgets.ts";
import { type Delivery, postCheckout, postEvent, signedEvent } from "./calls.ts";
import { formatTable } from "./format.ts";

export const COMMERCE_BUDGETS: { checkoutP95Ms: number; eventsPerSecond: Readonly<Record<string, number>> } = {
  checkoutP95Ms: 50,
  eventsPerSecond: { PostgreSQL: 150, PGlite: 50 },
};


/** The webhook's run: new buyers' events delivered, their rate, and what was lost or failed. */
export interface WebhookRun {
  events: number;
  warmup: number;
  concurrency: number;
  seconds: number;
  perSecond: number;
  failed: number;
  lost: number;
  p95Ms: number | null;
}

/** One backend's commerce numbers. */
export interface CommerceMeasured {
  backend: string;
  checkout: LatencySummary;
  webhook: WebhookRun;
}

export type CommerceResult = BackendOutcome<CommerceMeasured>;

/** What the verdict reads of a measured backend. */
type Judged = {
  backend: string;
  checkout: { p95Ms: number | null };
  webhook: Pick<WebhookRun, "events" | "perSecond" | "lost" | "failed">;
};

const isMeasured = <M extends { checkout: unknown }>(result: BackendOutcome<M>): result is M => "checkout" in result;

/**
 * Budget entries in the shape of tools/bench/budgets.ts: checkout p95 and webhook throughput warn
 * (the machine's load moves them), a lost or failed event fails the bench.
 */
export function checkCommerce(
  results: readonly BackendOutcome<Judged>[],
  budgets = COMMERCE_BUDGETS,
): BudgetResult[] {
  const measured = results.filter(isMeasured);
  const broken = results.flatMap((r) => ("error" in r && r.error ? [`${r.backend}: ${r.error}`] : []));
  return [
    budgetEntry(
      "checkout-p95",
      `stripe-checkout p95 <= ${budgets.checkoutP95Ms} ms (Stripe stand-in)`,
      false,
      measured
        .filter((r) => (r.checkout.p95Ms ?? 0) > budgets.checkoutP95Ms)
        .map((r) => `${r.backend} ${r.checkout.p95Ms} ms`),
      measured.map((r) => `${r.backend} ${r.checkout.p95Ms} ms`).join(", "),
    ),
    budgetEntry(
      "webhook-throughput",
      `stripe-webhook events/s >= ${Object.entries(budgets.eventsPerSecond)
        .map(([b, n]) => `${n} on ${b}`)
        .join(", ")} (new buyers)`,
      false,
      measured
        .filter((r) => r.webhook.perSecond < (budgets.eventsPerSecond[r.backend] ?? 0))
        .map((r) => `${r.backend} ${r.webhook.perSecond}/s`),
      measured.map((r) => `${r.backend} ${r.webhook.perSecond}/s`).join(", "),
    ),
    budgetEntry(
      "webhook-lost",
      "stripe-webhook loses no event (every order and account recorded, every delivery 2xx)",
      true,
      [
        ...broken,
        ...measured
          .filter((r) => r.webhook.lost > 0 || r.webhook.failed > 0)
          .map((r) => `${r.backend}: ${r.webhook.lost} lost, ${r.webhook.failed} failed`),
      ],
      measured.map((r) => `${r.backend} ${r.webhook.lost} lost of ${r.webhook.events}`).join(", "),
    ),
  ];
}

/** What is wrong with one backend's commerce numbers against the budgets, or null. */
export function commerceProblem(result: CommerceResult): string | null {
  if ("error" in result) return result.error;
  if ("skipped" in result) return null;
  const problems: string[] = [];
  if ((result.checkout.p95Ms ?? 0) > COMMERCE_BUDGETS.checkoutP95Ms)
    problems.push(`checkout p95 ${result.checkout.p95Ms} ms > ${COMMERCE_BUDGETS.checkoutP95Ms} ms`);
  const floor = COMMERCE_BUDGETS.eventsPerSecond[result.backend];
  if (floor && result.webhook.perSecond < floor)
    problems.push(`webhook ${result.webhook.perSecond} events/s < ${floor}`);
  if (result.webhook.lost > 0) problems.push(`${result.webhook.lost} events lost`);
  return problems.length ? problems.join("; ") : null;
}

export function commerceTable(results: readonly CommerceResult[]): string {
  return formatTable(
    [
      { key: "backend", title: "backend" },
      { key: "median", title: "checkout median ms" },
      { key: "p95", title: "p95 ms" },
      { key: "perSecond", title: "webhook events/s" },
      { key: "lost", title: "lost" },
      { key: "note", title: "note", align: "left" },
    ],
    results.map((r) =>
      !isMeasured(r)
        ? { backend: r.backend, note: "skipped" in r ? `skipped: ${r.skipped}` : `FAILED: ${r.error}` }
        : {
            backend: r.backend,
            median: r.checkout.medianMs,
            p95: r.checkout.p95Ms,
            perSecond: r.webhook.perSecond,
            lost: r.webhook.lost,
            note:
              commerceProblem(r) ??
              `${r.checkout.n} checkouts; ${r.webhook.events} new buyers' events (after ${r.webhook.warmup ?? 0} warm-ups), ${r.webhook.concurrency} in flight`,
          },
    ),
  );
}

async function checkoutLatency(
  stack: TestStack,
  { calls, warmup }: { calls: number; warmup: number },
): Promise<LatencySummary> {
  let n = 0;
  const call = async () => {
    // Each buyer checks out five times, the first as a new Stripe customer: within the limit per
    // e-mail address (functions/stripe-checkout/handler.ts LIMITS), which the bench keeps.
    const email = `bench-${Math.floor(n++ / 5)}@example.com`;
    const started = performance.now();
    const response = await postCheckout(stack, email, "bench");
    const answer: unknown = await response.json();
    const elapsed = performance.now() - started;
    const url = typeof answer === "object" && answer !== null && "url" in answer ? answer.url : undefined;
    if (response.status !== 200 || typeof url !== "string")
      throw new Error(`checkout answered ${response.status}: ${JSON.stringify(answer)}`);
    return elapsed;
  };
  for (let i = 0; i < warmup; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) samples.push(await call());
  return summarize(samples);
}

export async function webhookThroughput(
  stack: TestStack,
  { events, concurrency, warmup = 0 }: { events: number; concurrency: number; warmup?: number },
): Promise<WebhookRun> {
  const run = randomBytes(4).toString("hex");
  const deliveries: Delivery[] = [];
  for (let i = 0; i < warmup + events; i++) {
    deliveries.push(
      await signedEvent(stack, `evt_bench_${run}_${i}`, "checkout.session.completed", {
        id: `cs_test_bench_${run}_${i}`,
        object: "checkout.session",
        mode: "payment",
        status: "complete",
        payment_status: "paid",
        amount_subtotal: 30000,
        amount_total: 30000,
        currency: "usd",
        customer: `cus_bench${run}${i}`,
        customer_details: { email: `buyer-${run}-${i}@example.com` },
        metadata: { product_key: "GROWTH_MINDSET" },
        payment_intent: `pi_bench_${run}_${i}`,
      }),
    );
  }
  let failed = 0;
  /** Delivers `batch` with `concurrency` in flight; the latency of each delivery. */
  const deliver = async (batch: typeof deliveries) => {
    let next = 0;
    const latencies: number[] = [];
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let delivery = batch[next++]; delivery; delivery = batch[next++]) {
          const t = performance.now();
          const response = await postEvent(stack, delivery);
          await response.arrayBuffer();
          latencies.push(performance.now() - t);
          if (response.status !== 200) failed++;
        }
      }),
    );
    return latencies;
  };
  // Untimed, as the checkouts' warm-ups: the webhook's code paths compiled and its connections open.
  await deliver(deliveries.slice(0, warmup));
  const started = performance.now();
  const latencies = await deliver(deliveries.slice(warmup));
  const seconds = (performance.now() - started) / 1000;
  const { rows } = await stack.db.query<{ orders: number; users: number }>(
    `select (select count(*)::int from public.stripe_orders where checkout_session_id like $1) as orders,
            (select count(*)::int from auth.users where email like $2) as users`,
    [`cs_test_bench_${run}_%`, `buyer-${run}-%`],
  );
  // Every delivery counts, warm-ups included: none may be lost.
  const recorded = Math.min(rows[0]?.orders ?? 0, rows[0]?.users ?? 0);
  const p95 = percentile(latencies, 95);
  return {
    events,
    warmup,
    concurrency,
    seconds: Number(seconds.toFixed(2)),
    perSecond: Number((events / seconds).toFixed(1)),
    failed,
    lost: warmup + events - recorded,
    p95Ms: p95 === null ? null : Number(p95.toFixed(1)),
  };
}

/** Runs both backends; options: checkout calls and warmup, webhook events, warm-up events and concurrency, log. */
export async function runCommerceBench({
  calls = 100,
  warmup = 10,
  events = 800,
  eventWarmup = 50,
  concurrency = 8,
  log = () => {},
}: {
  calls?: number;
  warmup?: number;
  events?: number;
  eventWarmup?: number;
  concurrency?: number;
  log?: (line: string) => void;
} = {}): Promise<CommerceResult[]> {
  return forEachBackend(BUYING_STACK, async (backend, stack) => {
    log(`  ${backend}: ${warmup} + ${calls} checkouts…`);
    const checkout = await checkoutLatency(stack, { calls, warmup });
    log(`  ${backend}: ${eventWarmup} + ${events} webhook events, ${concurrency} in flight…`);
    const webhook = await webhookThroughput(stack, { events, concurrency, warmup: eventWarmup });
    return { backend, checkout, webhook };
  });
}
