/**
 * Disputes in the Stripe stand-in, as Stripe's test cards make them and its Disputes API answers
 * (docs: Testing, Disputes; API reference, Disputes; stripe-node `resources/Disputes.d.ts`):
 * - a charge of a dispute test card succeeds, then is disputed: a chargeback (`needs_response`;
 *   Stripe withdraws the amount and the dispute fee: `charge.dispute.created`,
 *   `charge.dispute.funds_withdrawn`) or an inquiry (`warning_needs_response`, no money moves:
 *   `charge.dispute.created`); the charge is `disputed`, and a charged-back one cannot be refunded;
 * - updating a dispute stages evidence and metadata, and submits the evidence unless `submit` is
 *   false ("true (the default)"): `under_review` (`warning_under_review` for an inquiry),
 *   `charge.dispute.updated`;
 * - submitted evidence whose `uncategorized_text` is `winning_evidence` or `losing_evidence`
 *   decides the dispute a moment later (./payments.ts schedules it): "The dispute is closed and
 *   marked as won. Your account is credited the amount of the charge and related fees"
 *   (`charge.dispute.closed`, `charge.dispute.funds_reinstated`), or lost (`charge.dispute.closed`);
 *   an inquiry closes as `warning_closed` ("charge.dispute.closed: … the dispute status changes to
 *   lost, warning_closed, or won");
 * - closing a dispute accepts it: "The status of the dispute will change from needs_response to
 *   lost" (an inquiry's to `warning_closed`), `charge.dispute.closed`;
 * - the early fraud warning test card's charge gets `radar.early_fraud_warning.created`.
 * Dev and test only.
 */
import * as objects from "./objects.ts";
import { invalid, noSuch } from "./params.ts";
import { NO_REQUEST, type Origin } from "./payments.ts";
import type { Store, StripeObject } from "./store.ts";

/** The test evidence that wins a dispute, as `evidence[uncategorized_text]` (docs: Testing, Disputes, Evidence). */
export const WINNING_EVIDENCE = "winning_evidence";
/** The test evidence that loses it. */
export const LOSING_EVIDENCE = "losing_evidence";

/** How long after its evidence is submitted a dispute with test evidence is decided, by default. */
export const DEFAULT_DISPUTE_DECISION_DELAY_MS = 5_000;

/** The statuses in which a dispute is closed: nothing about it changes any more. */
const CLOSED = ["won", "lost", "warning_closed", "prevented"];
/** The statuses that wait for the business's response. */
const AWAITING = ["needs_response", "warning_needs_response"];

/** What a request changes on a dispute (`POST /v1/disputes/:id`), already read and checked. */
export interface DisputeUpdate {
  /** The evidence fields given, each a non-empty string. */
  evidence?: Record<string, string>;
  /** The metadata as it is to be, when given. */
  metadata?: Record<string, string>;
  /** `submit`; left out it is true. */
  submit?: boolean;
  intendedSubmissionMethod?: string;
}

export interface Disputes {
  /** Disputes a charge that has just succeeded, as the test card asks. */
  open(charge: StripeObject, kind: objects.DisputeKind): StripeObject;
  /** Sends the early fraud warning of a charge that has just succeeded. */
  warn(charge: StripeObject): StripeObject;
  update(id: string, changes: DisputeUpdate, origin: Origin): StripeObject;
  /** Accepts the dispute (`POST /v1/disputes/:id/close`). */
  close(id: string, origin: Origin): StripeObject;
  /** Decides a dispute whose submitted evidence is test evidence; anything else is left as it is. */
  decide(id: string): void;
  /** Whether the charge has been charged back: Stripe refuses its refunds (`charge_disputed`). */
  chargedBack(chargeId: string): boolean;
}

type Emit = (type: string, object: StripeObject, origin: Origin, previous?: Record<string, unknown>) => StripeObject;

const isInquiry = (d: StripeObject) =>
  (d.payment_method_details as { card?: { case_type?: string } } | undefined)?.card?.case_type === "inquiry";

/**
 * The attributes of `before` that `after` changed, as an `*.updated` event's `previous_attributes`
 * shows them: of a nested object, only its changed keys.
 */
function previousOf(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const key of Object.keys(after)) {
    const [was, is] = [before[key], after[key]];
    if (JSON.stringify(was) === JSON.stringify(is)) continue;
    const nested = (value: unknown) => value !== null && typeof value === "object" && !Array.isArray(value);
    previous[key] =
      nested(was) && nested(is) && key !== "metadata"
        ? previousOf(was as Record<string, unknown>, is as Record<string, unknown>)
        : was;
  }
  return previous;
}

/** The stand-in's words: Stripe's answer to a change of a closed dispute is not documented. */
const closedError = (d: StripeObject) =>
  invalid(`This dispute is already closed (its status is ${String(d.status)}): it can no longer be changed.`);

export function createDisputes(ctx: {
  store: Store;
  emit: Emit;
  /** Has the dispute decided (`decide`) after the delay, when its evidence is test evidence. */
  decideLater(disputeId: string): void;
}): Disputes {
  const { store, emit } = ctx;
  const find = (id: string) => {
    const found = store.get("dispute", id);
    if (!found) throw noSuch("dispute", id);
    return found;
  };

  return {
    open(charge, kind) {
      const made = objects.dispute({ charge, kind });
      charge.disputed = true;
      const withdrawn = !isInquiry(made);
      if (withdrawn) {
        (made.balance_transactions as StripeObject[]).push(
          objects.disputeBalanceTransaction({ dispute: made, direction: "withdrawn" }),
        );
      }
      store.put("dispute", made);
      emit("charge.dispute.created", made, NO_REQUEST);
      if (withdrawn) emit("charge.dispute.funds_withdrawn", made, NO_REQUEST);
      store.save();
      return made;
    },

    warn(charge) {
      const warning = objects.earlyFraudWarning(charge);
      emit("radar.early_fraud_warning.created", warning, NO_REQUEST);
      store.save();
      return warning;
    },

    update(id, changes, origin) {
      const found = find(id);
      const closed = CLOSED.includes(found.status as string);
      const evidence = changes.evidence ?? {};
      const givesEvidence = Object.keys(evidence).length > 0;
      if (closed && (givesEvidence || changes.submit === true)) throw closedError(found);
      if (givesEvidence && !AWAITING.includes(found.status as string)) {
        // The stand-in's words: "Typically, you may only submit evidence once" (Dispute `submission_count`).
        throw invalid(
          `This dispute's evidence has been submitted (its status is ${String(found.status)}): it can no longer be changed.`,
          "evidence",
        );
      }
      const next = structuredClone(found);
      const details = next.evidence_details as Record<string, unknown>;
      if (givesEvidence) {
        Object.assign(next.evidence as Record<string, unknown>, evidence);
        details.has_evidence = true;
      }
      if (changes.metadata) next.metadata = changes.metadata;
      if (changes.intendedSubmissionMethod) next.intended_submission_method = changes.intendedSubmissionMethod;
      // "Whether to immediately submit evidence to the bank. If false, evidence is staged on the dispute."
      const submit = (changes.submit ?? true) && AWAITING.includes(next.status as string) && details.has_evidence;
      if (submit) {
        next.status = isInquiry(next) ? "warning_under_review" : "under_review";
        details.submission_count = (details.submission_count as number) + 1;
        details.submission_method = "manual";
        details.past_due = objects.now() > (details.due_by as number);
      }
      const previous = previousOf(found, next);
      if (Object.keys(previous).length === 0) return next;
      store.put("dispute", next);
      emit("charge.dispute.updated", next, origin, previous);
      const text = (next.evidence as { uncategorized_text: string | null }).uncategorized_text;
      if (submit && (text === WINNING_EVIDENCE || text === LOSING_EVIDENCE)) ctx.decideLater(next.id);
      store.save();
      return next;
    },

    close(id, origin) {
      const found = find(id);
      if (CLOSED.includes(found.status as string)) throw closedError(found);
      if (!AWAITING.includes(found.status as string)) {
        // The stand-in's words: Stripe documents closing from needs_response only.
        throw invalid(
          `This dispute's evidence has been submitted (its status is ${String(found.status)}): it can no longer be accepted.`,
        );
      }
      found.status = isInquiry(found) ? "warning_closed" : "lost";
      emit("charge.dispute.closed", found, origin);
      store.save();
      return found;
    },

    decide(id) {
      const found = store.get("dispute", id);
      if (!found || (found.status !== "under_review" && found.status !== "warning_under_review")) return;
      const text = (found.evidence as { uncategorized_text: string | null }).uncategorized_text;
      if (text !== WINNING_EVIDENCE && text !== LOSING_EVIDENCE) return;
      if (isInquiry(found)) {
        found.status = "warning_closed";
        emit("charge.dispute.closed", found, NO_REQUEST);
      } else if (text === WINNING_EVIDENCE) {
        found.status = "won";
        (found.balance_transactions as StripeObject[]).push(
          objects.disputeBalanceTransaction({ dispute: found, direction: "reinstated" }),
        );
        emit("charge.dispute.closed", found, NO_REQUEST);
        emit("charge.dispute.funds_reinstated", found, NO_REQUEST);
      } else {
        found.status = "lost";
        emit("charge.dispute.closed", found, NO_REQUEST);
      }
      store.save();
    },

    chargedBack(chargeId) {
      return store.all("dispute").some(({ data }) => data.charge === chargeId && !isInquiry(data));
    },
  };
}
