/**
 * After a webhook outage: lists the recent completed Checkout Sessions from Stripe and records,
 * through the webhook's own code path (./process.ts), each one the database lacks or holds in an
 * earlier state (pending there, paid at Stripe). Each is recorded as a `checkout.session.completed`
 * event with an id derived from the session and its payment status, so a second run finds them
 * recorded and changes nothing. Then, given the mail settings, it sends the order e-mails still
 * queued (after a mail outage: ./emails.ts). `npm run stripe:reconcile` runs it.
 */
import { CATALOGUE } from "../_shared/catalogue.ts";
import type { Stripe } from "../_shared/stripe.ts";
import { deliverOrderEmails, sessionsWithQueuedEmails } from "./emails.ts";
import { type Deps, processEvent } from "./process.ts";

export interface ReconcileReport {
  /** Completed sessions of ours found at Stripe in the window. */
  checked: number;
  /** Sessions recorded now. */
  recorded: string[];
  /** Sessions not paid at the program's price: held for review, no access (./process.ts `paymentProblem`). */
  held: string[];
  /** Order e-mails sent now, still queued, and given up on; null without the mail settings. */
  emails: { sent: number; queued: number; failed: number } | null;
}

const RANK: Record<string, number> = { pending: 0, canceled: 1, failed: 1, completed: 2, refunded: 3 };

export async function reconcile(deps: Deps, options: { days?: number } = {}): Promise<ReconcileReport> {
  const since = Math.floor(Date.now() / 1000) - (options.days ?? 30) * 86_400;
  const sessions: Stripe.Checkout.Session[] = [];
  for await (const session of deps.stripe.checkout.sessions.list({
    status: "complete",
    created: { gte: since },
    limit: 100,
  })) {
    if (session.mode === "payment" && CATALOGUE.some((p) => p.key === session.metadata?.product_key))
      sessions.push(session);
  }
  const known = new Map<string, string>();
  for (let i = 0; i < sessions.length; i += 100) {
    const ids = sessions.slice(i, i + 100).map((s) => s.id);
    const { data, error } = await deps.admin
      .from("stripe_orders")
      .select("checkout_session_id, status")
      .in("checkout_session_id", ids);
    if (error) throw new Error(`Reading orders failed: ${error.message}`);
    for (const row of data as { checkout_session_id: string; status: string }[])
      known.set(row.checkout_session_id, row.status);
  }
  const recorded: string[] = [];
  const held: string[] = [];
  for (const session of sessions) {
    const stripeStatus = session.payment_status === "unpaid" ? "pending" : "completed";
    const ours = known.get(session.id);
    if (ours !== undefined && RANK[ours]! >= RANK[stripeStatus]!) continue;
    const event = {
      id: `evt_reconcile_${session.id}_${session.payment_status}`,
      object: "event",
      type: "checkout.session.completed",
      created: Math.floor(Date.now() / 1000),
      data: { object: session },
    } as unknown as Stripe.Event;
    // Recorded without sending: the sweep below sends every queued e-mail, these included.
    const outcome = await processEvent(event, { ...deps, mail: undefined });
    if (outcome === "recorded") recorded.push(session.id);
    if (outcome === "held") held.push(session.id);
  }
  if (!deps.mail) return { checked: sessions.length, recorded, held, emails: null };
  const emails = { sent: 0, queued: 0, failed: 0 };
  const log = deps.log ?? ((m: string) => console.warn(m));
  for (const sessionId of await sessionsWithQueuedEmails(deps.admin)) {
    const report = await deliverOrderEmails(deps.admin, deps.mail, sessionId, log);
    emails.sent += report.sent.length;
    emails.queued += report.queued.length;
    emails.failed += report.failed.length;
    for (const { kind, error } of report.queued) log(`The ${kind} e-mail of ${sessionId} is still queued: ${error}`);
  }
  return { checked: sessions.length, recorded, held, emails };
}
