/** Offer arithmetic: totals and savings computed from the components, never typed twice. */
export interface OfferComponent {
  valueCents?: number;
  monthlyValueCents?: number;
}

export interface OfferTotals {
  /** Sum of the one-time values. */
  totalCents: number;
  /** Sum of the monthly values. */
  monthlyTotalCents: number;
  /** Whole percent saved on the one-time value, e.g. 74. */
  savingsPercent: number;
}

export function offerTotals(components: readonly OfferComponent[], priceCents: number): OfferTotals {
  const totalCents = components.reduce((sum, c) => sum + (c.valueCents ?? 0), 0);
  const monthlyTotalCents = components.reduce((sum, c) => sum + (c.monthlyValueCents ?? 0), 0);
  const savingsPercent = totalCents > 0 ? Math.max(0, Math.round((1 - priceCents / totalCents) * 100)) : 0;
  return { totalCents, monthlyTotalCents, savingsPercent };
}

/**
 * An offer's price as the page writes it: one-time, plus the monthly price where it has one, each
 * formatted by `cents` and the monthly by `perMonth` ("$35,000 + $450/month").
 */
export function offerPrice(
  offer: { priceCents: number; monthlyPriceCents?: number },
  cents: (amount: number) => string,
  perMonth: (amount: number) => string,
): string {
  return [cents(offer.priceCents), offer.monthlyPriceCents !== undefined && perMonth(offer.monthlyPriceCents)]
    .filter(Boolean)
    .join(" + ");
}
