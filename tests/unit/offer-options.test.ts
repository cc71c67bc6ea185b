/**
 * The ways to pay a coached offer as it is sent (packages/shared/offer-options.ts): the content's
 * plans at the content's price; at another price, each plan's length and fee kept and the total
 * split evenly; the membership beside them from its month after the cohort starts.
 */
import { describe, expect, it } from "vitest";
import { COACHED_OFFERS } from "../../functions/_shared/catalogue.ts";
import { offerPayment, splitEvenly } from "../../packages/shared/offer-options.ts";

const ai = COACHED_OFFERS.find((o) => o.id === "ai-advisor-accelerator")!;
const mindset = COACHED_OFFERS.find((o) => o.id === "growth-mindset")!;

describe("an offer's ways to pay, as sent", () => {
  it("at the content's price: in full, and each plan's instalments as content sets them", () => {
    const payment = offerPayment(ai, ai.priceCents, "2027-01-11")!;
    expect(payment.options).toEqual([
      { kind: "in_full", amountCents: 3500000 },
      {
        kind: "plan",
        name: ai.payment!.plans[0]!.name,
        instalmentsCents: [...ai.payment!.plans[0]!.instalmentsCents],
        feeCents: 100000,
      },
    ]);
    expect(payment.terms).toBe(ai.payment!.terms);
  });

  it("at another price: each plan keeps its length and fee, and its instalments still come to the price plus the fee", () => {
    const payment = offerPayment(ai, 3000000, "2027-01-11")!;
    expect(payment.options[0]).toEqual({ kind: "in_full", amountCents: 3000000 });
    expect(payment.options[1]).toEqual({
      kind: "plan",
      name: ai.payment!.plans[0]!.name,
      // $30,000 plus the $1,000 fee, in six: the odd cents on the first.
      instalmentsCents: [516670, 516666, 516666, 516666, 516666, 516666],
      feeCents: 100000,
    });
  });

  it("split the odd cents onto the first instalment, never losing or adding a cent", () => {
    expect(splitEvenly(3100000, 6)).toEqual([516670, 516666, 516666, 516666, 516666, 516666]);
    expect(splitEvenly(100, 3)).toEqual([34, 33, 33]);
    expect(() => splitEvenly(0, 3)).toThrow(RangeError);
  });

  it("date the membership beside the options, the content's months after the cohort starts; none without one", () => {
    const months = ai.payment!.membership!.startsAfterMonths;
    expect(offerPayment(ai, ai.priceCents, "2027-01-11")!.membership).toEqual({
      monthlyCents: 45000,
      startsOn: `2027-${String(1 + months).padStart(2, "0")}-11`,
    });
    // A month later than a cohort starting on the 31st: February's last day, as Stripe bills.
    const oneMonth = { ...ai, payment: { ...ai.payment!, membership: { startsAfterMonths: 1 } } };
    expect(offerPayment(oneMonth, ai.priceCents, "2027-01-31")!.membership?.startsOn).toBe("2027-02-28");
    expect(offerPayment(mindset, mindset.priceCents, null)!.membership).toBeNull();
  });

  it("is none for an offer content does not sell online yet, and refuses a price that is not one", () => {
    expect(offerPayment({ ...ai, payment: null }, ai.priceCents, "2027-01-11")).toBeNull();
    expect(() => offerPayment(ai, 0, "2027-01-11")).toThrow(RangeError);
    expect(() => offerPayment(ai, 12.5, "2027-01-11")).toThrow(RangeError);
  });
});
