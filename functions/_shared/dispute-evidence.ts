/**
 * The evidence a disputed payment is answered with, in Stripe's dispute evidence fields
 * (docs.stripe.com/api/disputes/update, `evidence`), from what the product holds about the buyer
 * and their use of the program (`dispute_evidence`, supabase/migrations/20261202000400_disputes.sql).
 * Banks ask of a digital product: who bought it, that they agreed to the refund policy, when the
 * service was delivered, and that they used it (the access log: account, sign-ins with their
 * addresses, lessons, downloads). Pure: `npm run stripe:dispute` (scripts/stripe.ts) prints it and,
 * with `--submit`, sends it.
 */
import { formatCents } from "../../packages/shared/money.ts";
import type { Stripe } from "./stripe.ts";

/** What `dispute_evidence` answers for an order. */
export interface BuyerActivity {
  email: string;
  name: string | null;
  account_created_at: string;
  last_sign_in_at: string | null;
  ordered_at: string;
  product_key: string;
  amount_total: number;
  currency: string;
  cohort_start: string | null;
  sign_ins: { at: string; ip: string | null; user_agent: string | null }[];
  lessons: { lesson: string; title: string | null; last_activity_at: string; completed_at: string | null }[];
  downloads: { at: string; path: string; ip: string | null }[];
}

export interface EvidenceContext {
  program: { name: string; description: string };
  /** The order reference the buyer's e-mails and purchase history show. */
  reference: string;
  /** The refund policy the checkout shows under the order summary (content/pages/checkout.yaml). */
  refundPolicy: string;
  /** Where the policy's full terms are: the site's Terms of Service. */
  termsUrl: string;
  /** The client portal, where the program is delivered. */
  portalUrl: string;
}

/** "2026-11-20 14:03 UTC". */
const when = (iso: string) => `${new Date(iso).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** The access log, one line per event, oldest first. */
export function accessLog(activity: BuyerActivity, context: EvidenceContext): string {
  const lines = [
    `Purchase: ${when(activity.ordered_at)}, ${context.program.name}, ${formatCents(activity.amount_total, activity.currency)} (order ${context.reference}), by ${activity.email}.`,
    `Account created: ${when(activity.account_created_at)}.`,
    activity.sign_ins.length
      ? "Sign-ins to the client portal (time, address, browser):"
      : "Sign-ins to the client portal: none recorded.",
    ...activity.sign_ins.map((s) =>
      `  ${when(s.at)}  ${s.ip ?? "address not recorded"}  ${s.user_agent ?? ""}`.trimEnd(),
    ),
    ...(activity.last_sign_in_at ? [`Last sign-in: ${when(activity.last_sign_in_at)}.`] : []),
    activity.lessons.length ? "Lessons worked in (last activity; completed):" : "Lessons worked in: none recorded.",
    ...activity.lessons.map(
      (l) =>
        `  ${when(l.last_activity_at)}  ${l.title ?? l.lesson}${l.completed_at ? `; completed ${when(l.completed_at)}` : ""}`,
    ),
    activity.downloads.length ? "Files downloaded (time, address, file):" : "Files downloaded: none recorded.",
    ...activity.downloads.map((d) => `  ${when(d.at)}  ${d.ip ?? "address not recorded"}  ${d.path}`),
  ];
  return lines.join("\n");
}

/** The evidence fields for Stripe, from the buyer's activity and what the checkout showed. */
export function disputeEvidence(
  activity: BuyerActivity,
  context: EvidenceContext,
): Stripe.DisputeUpdateParams.Evidence {
  const service = activity.cohort_start ?? activity.ordered_at.slice(0, 10);
  return {
    customer_email_address: activity.email,
    ...(activity.name ? { customer_name: activity.name } : {}),
    product_description: `${context.program.name}: ${context.program.description} An online training program, delivered in the buyer's client portal (${context.portalUrl}), which they sign in to with their e-mail address.`,
    service_date: service,
    access_activity_log: accessLog(activity, context),
    refund_policy_disclosure: `Shown on the checkout page under the order summary, before the buyer pressed Complete Purchase: "${context.refundPolicy}" with a link to the Terms of Service (${context.termsUrl}).`,
    uncategorized_text: `The buyer bought ${context.program.name} on ${when(activity.ordered_at)} with ${activity.email}; an account was made for that address and the program was opened in it${activity.cohort_start ? `, in the cohort starting ${activity.cohort_start}` : ""}. The access log lists their use of it.`,
  };
}
