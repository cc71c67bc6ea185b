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
