/**
 * The short reference a customer quotes for an order: the first 8 hex digits of the SHA-256 of
 * its Checkout Session id, in upper case ("3F9A27C1"). Derived, not stored, so the success page
 * knows it the moment Stripe sends the buyer back, before the webhook has recorded anything (and
 * when the status cannot be read at all); the database computes the same in
 * `stripe_user_orders.order_reference` (supabase/migrations/20261127000100_after_payment.sql),
 * which tests/integration/after-payment.test.ts holds to this function. 32 bits tell a customer's
 * orders apart; the session id stays the key. Web Crypto, which browsers (in a secure context),
 * Node and Deno all have.
 */
export async function orderReference(checkoutSessionId: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(checkoutSessionId));
  return [...new Uint8Array(digest).slice(0, 4)]
    .map((byte) => byte.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
}
