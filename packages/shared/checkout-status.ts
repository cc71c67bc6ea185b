/**
 * What the `checkout-status` function (functions/checkout-status/handler.ts) answers about one
 * Checkout Session, and what the success page (src/features/checkout/success.ts) reads from it.
 */

/**
 * Where the payment stands: `paid`; `processing` (a bank debit, days to clear); `failed` (declined
 * after the checkout); `open` (not paid yet: the buyer came here without finishing); `expired`.
 */
export type PaymentState = "paid" | "processing" | "failed" | "open" | "expired";

export interface CheckoutStatus {
  state: PaymentState;
  /** The program bought: its name, its checkout key and its course in the member area (/portal/courses/<id>). */
  program: { name: string; key: string; course: string };
  amountCents: number;
  currency: string;
  /** Where the receipt and the access e-mail go. */
  email: string | null;
  /** The order reference the e-mails and the purchase history show. */
  reference: string;
  /** For a cohort program, the first day (YYYY-MM-DD) of the cohort the buyer joins; null for a self-paced one. */
  cohortStart: string | null;
  /**
   * Of a paid order the webhook has recorded: whether the buyer's account was already in use (a
   * password set, or a sign-in link followed: its e-mail confirmed), so no e-mail asks them to set
   * a password and the success page skips that step. False for a buyer who has not used their
   * account yet, whose access e-mail carries the set-password link. Null when the function cannot
   * say: the order not recorded yet (the buyer came back before the webhook), or not paid.
   */
  accountInUse: boolean | null;
}
