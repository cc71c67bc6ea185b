/**
 * Amounts as the business writes them, from the smallest unit: en-US, whole dollars without
 * cents ("$2,999"), cents only when there are some ("$19.99"). The site's prices and the
 * functions' e-mails (functions/_shared/emails.ts) both use it, so an e-mail states an amount
 * exactly as the page that sold it did.
 */

/** Formats an amount in cents for display, e.g. 299900 -> "$2,999" and 1999 -> "$19.99". */
export function formatCents(cents: number, currency = "usd"): string {
  if (!Number.isInteger(cents)) throw new TypeError(`Amount must be whole cents, got ${cents}`);
  const whole = cents % 100 === 0;
  return new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: currency.toUpperCase(),
    minimumFractionDigits: whole ? 0 : 2,
    maximumFractionDigits: 2,
  }).format(cents / 100);
}
