/**
 * Preparing a coached offer (functions/_shared/offers.ts): what an admin asks for, checked against
 * the catalogue, and the single-use link's token and the hash the database keeps of it.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CATALOGUE, COACHED_OFFERS } from "../../functions/_shared/catalogue.ts";
import {
  DEFAULT_EXPIRY_DAYS,
  newOfferToken,
  OFFER_TOKEN,
  OfferError,
  offerTokenHash,
  prepareOffer,
} from "../../functions/_shared/offers.ts";
import { cohortOn } from "../../packages/shared/cohort.ts";

const catalogue = { offers: COACHED_OFFERS, products: CATALOGUE };
const ai = COACHED_OFFERS.find((o) => o.id === "ai-advisor-accelerator")!;
const aiProgram = CATALOGUE.find((p) => p.key === ai.productKey)!;
/** A day before the program's first cohort, so every cohort in content is open to it. */
const today = "2026-12-01";
const now = new Date("2026-12-01T15:00:00Z");
/** As on the local stack and staging, where content's sample plans and terms may be sent (ALLOW_SAMPLE_CONTENT). */
const SAMPLES = true;
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(OfferError);
    return { field: (error as OfferError).field, message: (error as OfferError).message };
  }
  throw new Error("not refused");
};

describe("preparing an offer", () => {
  it("refuses, in production, an offer whose plans, membership start or terms content still marks sample; the business's own go out", () => {
    const cohort = aiProgram.cohortStarts[0]!;
    expect(ai.payment!.sample).toBe(true);
    expect(refusal(() => prepareOffer({ offer: ai.id, cohortStart: cohort }, catalogue, today, now))).toEqual({
      field: "offer",
      message: expect.stringMatching(
        /still sample content: set the business's own and remove their `sample: true` first/,
      ),
    });
    const confirmed = { ...ai, payment: { ...ai.payment!, sample: false } };
    const prepared = prepareOffer(
      { offer: ai.id, cohortStart: cohort },
      { ...catalogue, offers: [confirmed] },
      today,
      now,
    );
    expect(prepared.payment.sample).toBeUndefined();
    expect(prepareOffer({ offer: ai.id, cohortStart: cohort }, catalogue, today, now, SAMPLES).payment.sample).toBe(
      true,
    );
  });

  it("at the content's price: the offer, its program, the cohort seat, the ways to pay and a 7-day link", () => {
    const cohort = aiProgram.cohortStarts[0]!;
    const prepared = prepareOffer({ offer: ai.id, cohortStart: cohort }, catalogue, today, now, SAMPLES);
    expect(prepared).toMatchObject({
      offer_key: "ai-advisor-accelerator",
      product_key: "AI_ACCELERATOR",
      cohort_start: cohort,
      list_price_cents: ai.priceCents,
      price_cents: ai.priceCents,
      price_reason: null,
      expires_at: new Date(now.getTime() + DEFAULT_EXPIRY_DAYS * 86_400_000).toISOString(),
    });
    expect(prepared.payment.options.map((o) => o.kind)).toEqual(["in_full", "plan"]);
    expect(prepared.payment.membership?.monthlyCents).toBe(45000);
  });

  it("at another price only with its reason, kept beside the content's price", () => {
    const cohort = aiProgram.cohortStarts[0]!;
    expect(
      refusal(() =>
        prepareOffer({ offer: ai.id, cohortStart: cohort, priceCents: 3000000 }, catalogue, today, now, SAMPLES),
      ),
    ).toEqual({
      field: "priceReason",
      message: "Say why the offer is at another price than the program's offer.",
    });
    const prepared = prepareOffer(
      { offer: ai.id, cohortStart: cohort, priceCents: 3000000, priceReason: "  Founding cohort rate  " },
      catalogue,
      today,
      now,
      SAMPLES,
    );
    expect(prepared).toMatchObject({
      list_price_cents: 3500000,
      price_cents: 3000000,
      price_reason: "Founding cohort rate",
    });
    expect(
      refusal(() => prepareOffer({ offer: ai.id, cohortStart: cohort, priceCents: 0 }, catalogue, today, now, SAMPLES))
        .field,
    ).toBe("priceCents");
  });

  it("holds a seat only in a cohort a buyer could join that day or a later one, and none for a self-paced program", () => {
    const refused = refusal(() =>
      prepareOffer({ offer: ai.id, cohortStart: "2026-06-01" }, catalogue, today, now, SAMPLES),
    );
    expect(refused.field).toBe("cohortStart");
    expect(refused.message).toBe(`Choose the cohort the offer holds a seat in: ${aiProgram.cohortStarts.join(", ")}.`);
    // After the first cohort's last day to join, only the later ones.
    const later = aiProgram.cohortStarts[1]!;
    const afterFirst = cohortOn(aiProgram.cohortStarts, "2027-02-01")!.start;
    expect(afterFirst).toBe(later);
    expect(
      refusal(() =>
        prepareOffer({ offer: ai.id, cohortStart: aiProgram.cohortStarts[0] }, catalogue, "2027-02-01", now, SAMPLES),
      ).field,
    ).toBe("cohortStart");
    expect(prepareOffer({ offer: ai.id, cohortStart: later }, catalogue, "2027-02-01", now, SAMPLES).cohort_start).toBe(
      later,
    );
    expect(
      refusal(() =>
        prepareOffer({ offer: "growth-mindset", cohortStart: "2027-01-11" }, catalogue, today, now, SAMPLES),
      ),
    ).toEqual({
      field: "cohortStart",
      message: "Growth Mindset Mastery has no cohorts.",
    });
    expect(prepareOffer({ offer: "growth-mindset" }, catalogue, today, now, SAMPLES).cohort_start).toBeNull();
  });

  it("refuses an offer content does not have or does not sell online, and a link of 0 or over 30 days", () => {
    expect(refusal(() => prepareOffer({ offer: "platinum" }, catalogue, today, now, SAMPLES))).toEqual({
      field: "offer",
      message: 'There is no coached offer "platinum".',
    });
    const unsold = { offers: [{ ...ai, payment: null }], products: CATALOGUE };
    expect(
      refusal(() => prepareOffer({ offer: ai.id, cohortStart: aiProgram.cohortStarts[0] }, unsold, today, now, SAMPLES))
        .field,
    ).toBe("offer");
    for (const days of [0, 31, 2.5]) {
      expect(
        refusal(() => prepareOffer({ offer: "growth-mindset", expiresInDays: days }, catalogue, today, now, SAMPLES))
          .field,
      ).toBe("expiresInDays");
    }
    expect(
      prepareOffer({ offer: "growth-mindset", expiresInDays: 30 }, catalogue, today, now, SAMPLES).expires_at,
    ).toBe("2026-12-31T15:00:00.000Z");
  });
});

describe("the offer link's token", () => {
  it("is 32 random bytes in base64url, a new one each time", () => {
    const tokens = new Set(Array.from({ length: 50 }, newOfferToken));
    expect(tokens.size).toBe(50);
    for (const token of tokens) expect(token).toMatch(OFFER_TOKEN);
  });

  it("is kept as its SHA-256, as PostgREST writes a bytea", async () => {
    const token = newOfferToken();
    expect(await offerTokenHash(token)).toBe(`\\x${createHash("sha256").update(token).digest("hex")}`);
  });
});
