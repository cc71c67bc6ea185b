/**
 * Sends the e-mails an order's events queued (`order_emails`, queued by `record_stripe_event`
 * in the transaction that records the event: supabase/migrations/20261127000100_after_payment.sql).
 * A delivery claims the queued e-mails of its session (`claim_order_emails`: one sender at a
 * time, each with the order's and the buyer's facts), renders each (functions/_shared/emails.ts) and
 * sends it with an idempotency key of the order and kind (functions/_shared/mail.ts), then marks
 * it sent, or queues it again with the error. A mail outage never loses an order: the order is
 * recorded before any of this, the webhook answers 5xx so Stripe delivers the event again (and
 * the redelivery, a duplicate for the order, sends what is still queued), and
 * `npm run stripe:reconcile` sends whatever is left.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { CATALOGUE, TIME_ZONE } from "../_shared/catalogue.ts";
import { accessEmail, type OrderFacts, paymentFailedEmail, refundEmail } from "../_shared/emails.ts";
import { type Env, required } from "../_shared/env.ts";
import { type Email, MailError, sendEmail } from "../_shared/mail.ts";
import { orderReference } from "../_shared/order-reference.ts";
import { dayIn } from "../../packages/shared/cohort.ts";

type Kind = "access" | "payment_failed" | "refund";

/** A claimed e-mail with what it says (`claim_order_emails`). */
interface ClaimedEmail {
  kind: Kind;
  attempts: number;
  product_key: string;
  amount_total: number;
  currency: string;
  /** The buyer's account address. */
  email: string;
  /** Whether the buyer has used their account (followed a link, set a password). */
  confirmed: boolean;
  /** The set-password link kept for them, while it is fresh. */
  link_token_hash: string | null;
  /** The start day of the buyer's cohort (a cohort program), YYYY-MM-DD; null for a self-paced one. */
  cohort_start: string | null;
  /** When the order was made. */
  order_date: string;
}

/** What sending the queued e-mails of one session came to. */
export interface EmailReport {
  sent: Kind[];
  /** E-mails that will be tried again (a later delivery, or `npm run stripe:reconcile`). */
  queued: { kind: Kind; error: string }[];
  /** E-mails given up on: logged for someone to look at; the order stands. */
  failed: { kind: Kind; error: string }[];
}

/** How long an e-mail waits for another delivery that is making the buyer's set-password link. */
const WAIT_FOR_LINK_MS = 3_000;

/**
 * The set-password link of a buyer whose account has never been used (no confirmed e-mail: the
 * link was never followed), or null. Auth makes the link without sending anything (the admin
 * `generateLink` of type invite). Auth keeps one such token per account, so the link is kept per
 * buyer (supabase/migrations/20261127000100_after_payment.sql, section 7): the one made with the
 * account comes with the claim; once that is 45 minutes old, one delivery at a time makes a new
 * one (`set_password_link`). Every e-mail to the buyer meanwhile carries the same link, and a
 * retry sends the very same message.
 */
async function setPasswordUrl(admin: SupabaseClient, site: string, claimed: ClaimedEmail): Promise<string | null> {
  if (claimed.confirmed) return null;
  const { email } = claimed;
  let hash = claimed.link_token_hash;
  for (let waited = 0; !hash; waited += 100) {
    const kept = await admin.rpc("set_password_link", { p_email: email });
    if (kept.error) throw new Error(`Reading the set-password link failed: ${kept.error.message}`);
    const answer = kept.data as { hash?: string; claimed?: boolean };
    if (answer.hash) hash = answer.hash;
    else if (answer.claimed) {
      const { data, error } = await admin.auth.admin.generateLink({ type: "invite", email });
      // Confirmed since we looked (a password set from an earlier e-mail): no link needed.
      if (error?.code === "email_exists") return null;
      if (error || !data.properties) throw new Error(`Making the set-password link failed: ${error?.message}`);
      hash = data.properties.hashed_token;
      const stored = await admin.rpc("keep_set_password_link", { p_email: email, p_hash: hash });
      if (stored.error) throw new Error(`Keeping the set-password link failed: ${stored.error.message}`);
    } else if (waited >= WAIT_FOR_LINK_MS) {
      throw new Error("Another delivery is still making the buyer's set-password link");
    } else await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const url = new URL("/reset-password", site);
  url.searchParams.set("token_hash", hash);
  url.searchParams.set("type", "invite");
  return url.href;
}

async function render(admin: SupabaseClient, site: string, sessionId: string, claimed: ClaimedEmail): Promise<Email> {
  const program = CATALOGUE.find((p) => p.key === claimed.product_key);
  if (!program) throw new Error(`Order ${sessionId} is for ${claimed.product_key}, not in the catalogue`);
  const facts: OrderFacts = {
    site,
    program: { id: program.id, key: program.key, name: program.name },
    amountCents: claimed.amount_total,
    currency: claimed.currency,
    reference: await orderReference(sessionId),
    email: claimed.email,
    ...(claimed.cohort_start
      ? {
          cohort: {
            start: claimed.cohort_start,
            started: dayIn(TIME_ZONE) >= claimed.cohort_start,
            orderedAt: new Date(claimed.order_date),
          },
        }
      : {}),
  };
  switch (claimed.kind) {
    case "access":
      return accessEmail(facts, await setPasswordUrl(admin, site, claimed));
    case "payment_failed":
      return paymentFailedEmail(facts);
    case "refund":
      return refundEmail(facts);
  }
}

/** Sends the queued e-mails of `sessionId`. Throws nothing: the report says what is left. */
export async function deliverOrderEmails(
  admin: SupabaseClient,
  env: Env,
  sessionId: string,
  log: (message: string) => void,
): Promise<EmailReport> {
  const report: EmailReport = { sent: [], queued: [], failed: [] };
  const claimed = await admin.rpc("claim_order_emails", { p_checkout_session_id: sessionId });
  if (claimed.error) {
    report.queued.push({ kind: "access", error: `Claiming the e-mails failed: ${claimed.error.message}` });
    return report;
  }
  for (const email of (claimed.data ?? []) as ClaimedEmail[]) {
    let providerId: string | null = null;
    let problem: string | null = null;
    let retryable = true;
    try {
      const { SITE_URL } = required(env, ["SITE_URL"]);
      const message = await render(admin, SITE_URL, sessionId, email);
      providerId = await sendEmail(env, message, `order-email/${sessionId}/${email.kind}`);
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
      if (error instanceof MailError) retryable = error.retryable;
    }
    const finished = await admin.rpc("finish_order_email", {
      p_checkout_session_id: sessionId,
      p_kind: email.kind,
      p_provider_id: providerId,
      p_error: problem,
      // A refusal no retry can change (a malformed address) is given up at once.
      ...(retryable ? {} : { p_max_attempts: 0 }),
    });
    const status = finished.error ? "queued" : (finished.data as string | null);
    if (problem === null && status === "sent") report.sent.push(email.kind);
    else if (status === "failed") {
      report.failed.push({ kind: email.kind, error: problem ?? "" });
      log(`Gave up on the ${email.kind} e-mail of order ${sessionId}: ${problem}`);
    } else report.queued.push({ kind: email.kind, error: problem ?? finished.error?.message ?? "not finished" });
  }
  return report;
}

/**
 * Sessions with e-mails still to send: queued, or being sent. Which of a session's e-mails may be
 * taken now (a claim left unfinished for two minutes, not a fresh one) is `claim_order_emails`'s
 * rule alone; for a fresh claim it hands over nothing.
 */
export async function sessionsWithQueuedEmails(admin: SupabaseClient): Promise<string[]> {
  const { data, error } = await admin
    .from("order_emails")
    .select("checkout_session_id")
    .in("status", ["queued", "sending"]);
  if (error) throw new Error(`Reading queued e-mails failed: ${error.message}`);
  return [...new Set((data as { checkout_session_id: string }[]).map((row) => row.checkout_session_id))];
}
