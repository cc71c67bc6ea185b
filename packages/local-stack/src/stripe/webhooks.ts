/**
 * Webhook delivery of the Stripe stand-in: every event goes, as Stripe (and `stripe listen`)
 * sends it, to one endpoint (by default the stack's `/functions/v1/stripe-webhook`): a POST of
 * the event's JSON with `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"
 * keyed with the whole whsec_ secret>` (what stripe-node's `webhooks.constructEventAsync`
 * checks). An answer other than 2xx, a redirect, no answer or no answer in time is a failed
 * attempt, retried after growing delays (Stripe: exponential backoff for up to three days in
 * live mode; the stand-in's schedule is compressed and configurable). As Stripe, it sends
 * several at once and in no set order (webhook docs: "Stripe doesn't guarantee the delivery of
 * events in the order in which they're generated", and an endpoint must handle concurrent
 * deliveries): up to four attempts are in flight together, and each event waits a random moment
 * (up to 250 ms) before its first attempt, so events made together (`charge.succeeded`,
 * `payment_intent.succeeded`, `checkout.session.completed`) arrive in any order and an endpoint
 * that depends on one shows it here. Retries run on their own timers, so a failing event holds no
 * later one back. Deliveries are kept in the store, so pending ones resume after a restart, and
 * form the delivery log. Dev and test only.
 */
import { createHmac } from "node:crypto";
import type { Delivery, Store, StripeObject } from "./store.ts";

/** 2 s, 10 s, 1 min, 5 min, 30 min, 2 h: Stripe's backoff, compressed for a laptop. */
export const DEFAULT_RETRY_DELAYS_MS = [2_000, 10_000, 60_000, 300_000, 1_800_000, 7_200_000];

/**
 * How long an endpoint has to answer. Stripe does not publish its limit (its dashboard reports
 * "Timed out"); 20 seconds, the functions' own Stripe API timeout, is the stand-in's.
 */
export const DEFAULT_TIMEOUT_MS = 20_000;

/** How long closing the stack lets an attempt under way finish before cutting it off. */
const CLOSE_GRACE_MS = 2_000;

/** Attempts in flight at once. Stripe publishes no figure; a few at once is what an endpoint sees. */
export const DEFAULT_CONCURRENCY = 4;

/** The longest random wait before an event's first attempt, which unorders events made together. */
export const DEFAULT_JITTER_MS = 250;

/** How deliveries are spread: tests set a `random` to choose the order. */
export interface DeliveryOptions {
  /** Attempts in flight at once; default 4. */
  concurrency?: number;
  /** The longest random wait before a first attempt; default 250 ms. */
  jitterMs?: number;
  /** A number in [0, 1) per event, scaled to its wait; default Math.random. */
  random?: () => number;
}

export interface WebhookOptions extends DeliveryOptions {
  url: string;
  secret: string;
  retryDelaysMs: number[];
  timeoutMs: number;
}

/** The `Stripe-Signature` header for `payload` signed at `timestamp` (unix seconds), as Stripe makes it. */
export function signatureHeader(payload: string, secret: string, timestamp: number): string {
  const v1 = createHmac("sha256", secret).update(`${timestamp}.${payload}`, "utf8").digest("hex");
  return `t=${timestamp},v1=${v1}`;
}

export interface Deliverer {
  /** Queues the event's first delivery; the caller saves the store. */
  enqueue(event: StripeObject): void;
  /** Sends a failed (or any) event again now, as the dashboard's Resend does. */
  resend(eventId: string): void;
  /** Resolves when no delivery is pending or under way. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export function createDeliverer(store: Store, options: WebhookOptions): Deliverer {
  const deliveries = store.state.deliveries;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const jitterMs = Math.max(0, options.jitterMs ?? DEFAULT_JITTER_MS);
  const random = options.random ?? Math.random;
  /** Events whose attempt is due, waiting for a free place. */
  const ready: string[] = [];
  /** Waits before an attempt: a first attempt's random one, or a retry's backoff. */
  const timers = new Map<string, NodeJS.Timeout>();
  const inFlight = new Map<string, { done: Promise<void>; abort: AbortController }>();
  let closed = false;
  let waiters: (() => void)[] = [];

  const settled = () =>
    inFlight.size === 0 && ready.length === 0 && Object.values(deliveries).every((d) => d.status !== "pending");
  const notify = () => {
    if (!settled() && !closed) return;
    const resolved = waiters;
    waiters = [];
    for (const resolve of resolved) resolve();
  };

  /** Starts due attempts while fewer than `concurrency` are in flight. */
  function pump() {
    while (!closed && inFlight.size < concurrency && ready.length > 0) {
      const eventId = ready.shift()!;
      if (!inFlight.has(eventId)) void attempt(eventId);
    }
    notify();
  }

  async function attempt(eventId: string): Promise<void> {
    const delivery = deliveries[eventId];
    const event = store.get("event", eventId);
    if (!delivery || !event || delivery.status !== "pending" || closed) return;
    const payload = JSON.stringify(event, null, 2);
    const timestamp = Math.floor(Date.now() / 1000);
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, options.timeoutMs);
    const started = Date.now();
    let resolveDone!: () => void;
    const done = new Promise<void>((resolve) => (resolveDone = resolve));
    inFlight.set(eventId, { done, abort });
    let status: number | null = null;
    let error: string | undefined;
    try {
      const response = await fetch(options.url, {
        method: "POST",
        redirect: "manual",
        signal: abort.signal,
        headers: {
          "content-type": "application/json; charset=utf-8",
          "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
          accept: "*/*; q=0.5, application/xml",
          "cache-control": "no-cache",
          "stripe-signature": signatureHeader(payload, options.secret, timestamp),
        },
        body: payload,
      });
      status = response.status;
      await response.arrayBuffer().catch(() => undefined);
    } catch (caught) {
      error = timedOut
        ? `Timed out after ${options.timeoutMs} ms`
        : (((caught as Error).cause as Error)?.message ?? (caught as Error).message);
    } finally {
      clearTimeout(timer);
      inFlight.delete(eventId);
    }
    // Cut off by the stack closing: not an attempt; it goes out again on the next start.
    if (closed && !timedOut && status === null) {
      resolveDone();
      return;
    }
    record(delivery, event, { at: started, status, durationMs: Date.now() - started, ...(error ? { error } : {}) });
    resolveDone();
    pump();
  }

  function record(delivery: Delivery, event: StripeObject, result: Delivery["attempts"][number]) {
    delivery.attempts.push(result);
    if (result.status !== null && result.status >= 200 && result.status < 300) {
      delivery.status = "succeeded";
      delivery.nextAttemptAt = null;
      event.pending_webhooks = 0;
    } else {
      const delay = options.retryDelaysMs[delivery.attempts.length - 1];
      if (delay === undefined) {
        delivery.status = "failed";
        delivery.nextAttemptAt = null;
      } else {
        delivery.nextAttemptAt = Date.now() + delay;
        schedule(delivery);
      }
    }
    store.save();
  }

  /** Makes the delivery due at its `nextAttemptAt`. */
  function schedule(delivery: Delivery) {
    if (closed) return;
    clearTimeout(timers.get(delivery.eventId));
    const timer = setTimeout(
      () => {
        timers.delete(delivery.eventId);
        ready.push(delivery.eventId);
        pump();
      },
      Math.max(0, (delivery.nextAttemptAt ?? 0) - Date.now()),
    );
    timer.unref();
    timers.set(delivery.eventId, timer);
  }

  /** A first attempt waits a random moment, so events made together go out in no set order. */
  const firstAttemptAt = () => Date.now() + Math.floor(random() * jitterMs);

  // Resume what a previous run left pending: first attempts after their random wait, retries when due.
  for (const delivery of Object.values(deliveries)) {
    if (delivery.status !== "pending") continue;
    if (delivery.attempts.length === 0) delivery.nextAttemptAt = firstAttemptAt();
    schedule(delivery);
  }

  return {
    enqueue(event) {
      const delivery: Delivery = {
        eventId: event.id,
        type: event.type as string,
        seq: ++store.state.seq,
        status: "pending",
        attempts: [],
        // Never before the caller's change is saved and answered: a timer runs after this turn.
        nextAttemptAt: firstAttemptAt(),
      };
      deliveries[event.id] = delivery;
      schedule(delivery);
    },
    resend(eventId) {
      const delivery = deliveries[eventId];
      if (!delivery) throw new Error(`No delivery of event ${eventId}`);
      delivery.status = "pending";
      delivery.nextAttemptAt = Date.now();
      store.save();
      schedule(delivery);
    },
    idle() {
      if (settled() || closed) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    async close() {
      closed = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      const running = [...inFlight.values()];
      const grace = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
      await Promise.race([Promise.all(running.map((r) => r.done)), grace]);
      for (const { abort } of inFlight.values()) abort.abort();
      await Promise.all(running.map((r) => r.done));
      notify();
    },
  };
}
