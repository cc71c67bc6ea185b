// Launch day on the local stack (PGlite, then a throw-away PostgreSQL server), for a fixed time:
//   - buyers opening checkouts: `stripe-checkout` called as the checkout page calls it, 4 at once;
//   - Stripe delivering at the same time, 8 at once, a stream of new buyers' events: most paid by
//     card (`checkout.session.completed`), some by bank debit whose `async_payment_succeeded`
//     arrives before its `completed` (out of order), and earlier deliveries sent again
//     (duplicates, as Stripe retries).
// Then, as Stripe does, every delivery that did not get a 2xx is retried until it does (bounded),
// and every buyer's order and account are counted: a paid session without its completed order
// is lost. Reported: requests per second, p50/p95/p99 and errors (non-2xx answers during the
// spike, which Stripe's retries absorb) for each side, and orders lost (the hard budget: 0).
import { randomBytes } from "node:crypto";
import type { TestStack } from "@advisor-accelerator/local-stack";
import { type BackendOutcome, BUYING_STACK, forEachBackend, percentile } from "./backend.ts";
import { budgetEntry, type BudgetResult } from "./budgets.ts";
import { type Delivery, postCheckout, postEvent, signedEvent } from "./calls.ts";
import { type Cell, formatTable } from "./format.ts";


function round(value: number): number;
function round(value: number | null): number | null;
function round(value: number | null): number | null {
  return value === null ? null : Number(value.toFixed(1));
}

/** One side of the spike (the checkouts, or Stripe's deliveries): its rate, latencies and errors. */
export interface SpikeStats {
  requests: number;
  perSecond: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  errors: number;
}

/** One backend's spike: each side, and every buyer's order counted afterwards. */
export interface LaunchMeasured {
  backend: string;
  seconds: number;
  checkout: SpikeStats;
  webhook: SpikeStats & { duplicates: number; outOfOrder: number; retried: number; unanswered: number };
  orders: { expected: number; recorded: number; lost: number };
}

export type LaunchResult = BackendOutcome<LaunchMeasured>;

const isMeasured = (result: LaunchResult): result is LaunchMeasured => "orders" in result;

/** Requests per second and latency percentiles of one side of the spike. */
export function spikeStats(latencies: readonly number[], errors: number, seconds: number): SpikeStats {
  return {
    requests: latencies.length,
    perSecond: round(latencies.length / seconds),
    p50Ms: round(percentile(latencies, 50)),
    p95Ms: round(percentile(latencies, 95)),
    p99Ms: round(percentile(latencies, 99)),
    errors,
  };
}

/**
 * A lost order or a broken run fails the bench; a refused checkout warns (the buyer would see an
 * error); webhook errors during the spike are reported only, since Stripe's retries absorb them.
 */
export function checkLaunch(results: readonly LaunchResult[]): BudgetResult[] {
  const broken = results.flatMap((r) => ("error" in r && r.error ? [`${r.backend}: ${r.error}`] : []));
  const measured = results.filter(isMeasured);
  return [
    budgetEntry(
      "launch-lost",
      "launch spike: every paid session ends with its completed order and account (0 lost)",
      true,
      [
        ...broken,
        ...measured.filter((r) => r.orders.lost > 0).map((r) => `${r.backend}: ${r.orders.lost} lost of ${r.orders.expected}`),
      ],
      measured.map((r) => `${r.backend} ${r.orders.lost} lost of ${r.orders.expected}`).join(", "),
    ),
    budgetEntry(
      "launch-checkout-errors",
      "launch spike: no buyer's checkout refused (every stripe-checkout answer 200)",
      false,
      measured.filter((r) => r.checkout.errors > 0).map((r) => `${r.backend}: ${r.checkout.errors} errors`),
      measured.map((r) => `${r.backend} ${r.checkout.errors} of ${r.checkout.requests}`).join(", "),
    ),
  ];
}

export function launchTable(results: readonly LaunchResult[]): string {
  const rows: Record<string, Cell>[] = [];
  for (const r of results) {
    if (!isMeasured(r)) {
      rows.push({ backend: r.backend, side: "", note: "skipped" in r ? `skipped: ${r.skipped}` : `FAILED: ${r.error}` });
      continue;
    }
    for (const [side, s] of [
      ["checkout", r.checkout],
      ["webhook", r.webhook],
    ] as const) {
      rows.push({
        backend: r.backend,
        side,
        perSecond: s.perSecond,
        p50: s.p50Ms,
        p95: s.p95Ms,
        p99: s.p99Ms,
        errors: s.errors,
        note:
          side === "webhook"
            ? `${r.orders.expected} buyers, ${r.orders.lost} lost; ${r.webhook.duplicates} duplicates, ${r.webhook.outOfOrder} out of order; ${r.webhook.retried} retried after`
            : `${r.seconds} s`,
      });
    }
  }
  return formatTable(
    [
      { key: "backend", title: "backend", align: "left" },
      { key: "side", title: "side", align: "left" },
      { key: "perSecond", title: "req/s" },
      { key: "p50", title: "p50 ms" },
      { key: "p95", title: "p95 ms" },
      { key: "p99", title: "p99 ms" },
      { key: "errors", title: "errors" },
      { key: "note", title: "note", align: "left" },
    ],
    rows,
  );
}

async function spike(
  stack: TestStack,
  { seconds, checkouts, deliveries }: { seconds: number; checkouts: number; deliveries: number },
): Promise<Omit<LaunchMeasured, "backend">> {
  const run = randomBytes(4).toString("hex");
  const sign = (type: string, session: Record<string, unknown>, id: string) => signedEvent(stack, id, type, session);
  const post = (delivery: Delivery) => postEvent(stack, delivery);

  const until = performance.now() + seconds * 1000;
  const checkout: { latencies: number[]; errors: number } = { latencies: [], errors: 0 };
  const webhook: typeof checkout & { duplicates: number; outOfOrder: number } = {
    latencies: [],
    errors: 0,
    duplicates: 0,
    outOfOrder: 0,
  };
  const sent: Delivery[] = [];
  const failed: Delivery[] = [];
  const buyers: { email: string; session: string }[] = [];

  const checkoutWorker = async (w: number) => {
    for (let i = 0; performance.now() < until; i++) {
      const started = performance.now();
      const response = await postCheckout(stack, `spike-${run}-${w}-${i}@example.com`, "launch");
      await response.arrayBuffer();
      checkout.latencies.push(performance.now() - started);
      if (response.status !== 200) checkout.errors++;
    }
  };

  const deliver = async (delivery: Delivery) => {
    const started = performance.now();
    const response = await post(delivery);
    await response.arrayBuffer();
    webhook.latencies.push(performance.now() - started);
    if (response.status !== 200) {
      webhook.errors++;
      failed.push(delivery);
    }
  };

  let next = 0;
  const webhookWorker = async () => {
    while (performance.now() < until) {
      const n = next++;
      // Every seventh delivery repeats an earlier one, as a Stripe retry does.
      const again = n % 7 === 6 ? sent[Math.floor(Math.random() * sent.length)] : undefined;
      if (again) {
        webhook.duplicates++;
        await deliver(again);
        continue;
      }
      const email = `launch-${run}-${n}@example.com`;
      const session = {
        id: `cs_test_launch_${run}_${n}`,
        object: "checkout.session",
        mode: "payment",
        status: "complete",
        payment_status: "paid",
        amount_subtotal: 30000,
        amount_total: 30000,
        currency: "usd",
        customer: `cus_launch${run}${n}`,
        customer_details: { email },
        metadata: { product_key: "GROWTH_MINDSET", utm_source: "launch" },
        payment_intent: `pi_launch_${run}_${n}`,
      };
      buyers.push({ email, session: session.id });
      if (n % 5 === 4) {
        // A bank debit: the success arrives before the completion that announced it pending.
        webhook.outOfOrder++;
        const succeeded = await sign("checkout.session.async_payment_succeeded", session, `evt_launch_${run}_${n}_s`);
        const completed = await sign(
          "checkout.session.completed",
          { ...session, payment_status: "unpaid" },
          `evt_launch_${run}_${n}_c`,
        );
        sent.push(succeeded, completed);
        await deliver(succeeded);
        await deliver(completed);
      } else {
        const delivery = await sign("checkout.session.completed", session, `evt_launch_${run}_${n}`);
        sent.push(delivery);
        await deliver(delivery);
      }
    }
  };

  const started = performance.now();
  await Promise.all([
    ...Array.from({ length: checkouts }, (_, w) => checkoutWorker(w)),
    ...Array.from({ length: deliveries }, () => webhookWorker()),
  ]);
  const elapsed = (performance.now() - started) / 1000;

  // Stripe's retries: each failed delivery again, a few seconds apart, until it is answered 2xx.
  let retried = 0;
  for (let attempt = 0; attempt < 5 && failed.length; attempt++) {
    const again = failed.splice(0);
    await new Promise((resolve) => setTimeout(resolve, attempt ? 3000 : 500));
    for (const delivery of again) {
      retried++;
      const response = await post(delivery);
      await response.arrayBuffer();
      if (response.status !== 200) failed.push(delivery);
    }
  }

  const { rows } = await stack.db.query<{ completed: number; accounts: number }>(
    `select
       (select count(*)::int from public.stripe_orders
          where checkout_session_id like $1 and status = 'completed') as completed,
       (select count(*)::int from auth.users where email like $2) as accounts`,
    [`cs_test_launch_${run}_%`, `launch-${run}-%`],
  );
  const recorded = Math.min(rows[0]?.completed ?? 0, rows[0]?.accounts ?? 0);
  return {
    seconds: round(elapsed),
    checkout: spikeStats(checkout.latencies, checkout.errors, elapsed),
    webhook: {
      ...spikeStats(webhook.latencies, webhook.errors, elapsed),
      duplicates: webhook.duplicates,
      outOfOrder: webhook.outOfOrder,
      retried,
      unanswered: failed.length,
    },
    orders: { expected: buyers.length, recorded, lost: buyers.length - recorded },
  };
}

/** Both backends; options: seconds of spike, checkouts and deliveries in flight, log. */
export async function runLaunchBench({
  seconds = 10,
  checkouts = 4,
  deliveries = 8,
  log = () => {},
}: {
  seconds?: number;
  checkouts?: number;
  deliveries?: number;
  log?: (line: string) => void;
} = {}): Promise<LaunchResult[]> {
  return forEachBackend(BUYING_STACK, async (backend, stack) => {
    log(`  ${backend}: ${seconds} s spike, ${checkouts} checkouts and ${deliveries} deliveries in flight…`);
    return { backend, ...(await spike(stack, { seconds, checkouts, deliveries })) };
  });
}
