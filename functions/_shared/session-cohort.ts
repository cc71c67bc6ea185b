/**
 * The cohort a Checkout Session sold a seat in, for the webhook (which records it on the order) and
 * the success page's status: the one the checkout function chose when it opened the session
 * (metadata `cohort_start`), which the buyer was shown before paying; for a session without it
 * (opened before the checkout named cohorts), the one the rule (packages/shared/cohort.ts) picks on
 * the day the session was opened. Null for a self-paced program, or when no cohort was open.
 */
import { cohortAt, isDay } from "../../packages/shared/cohort.ts";
import { type CatalogueProduct, TIME_ZONE } from "./catalogue.ts";

export function sessionCohort(
  session: { metadata?: Record<string, string> | null; created?: number },
  product: CatalogueProduct,
): string | null {
  if (product.cohortStarts.length === 0) return null;
  const chosen = session.metadata?.cohort_start;
  if (isDay(chosen)) return chosen;
  const opened = Number.isFinite(session.created) ? new Date(session.created! * 1000) : new Date();
  return cohortAt(product.cohortStarts, TIME_ZONE, opened)?.start ?? null;
}
