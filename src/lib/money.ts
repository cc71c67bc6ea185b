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
