/**
 * The checkout page's rules: the program an address names, what ships to the browser, where Back
 * goes, whether the customer already owns the program, and the record of a checkout that left for
 * Stripe.
 */
import { describe, expect, it } from "vitest";
import { loadProgramEntries } from "../../../tests/unit/content-files";
import { firstTouch } from "~/lib/attribution";
import {
  accessNote,
  checkoutProgram,
  type CohortCopy,
  INSTANT_ACCESS,
  keyFromPath,
  ownership,
  parseAttribution,
  parsePendingCheckout,
  PENDING_CHECKOUT_TTL_MS,
  programAt,
  refusalOf,
  RUSH_WAIT_MAX_SECONDS,
  rushWaitOf,
  returnsToPreviousPage,
} from "./logic";

const sources = loadProgramEntries();
const context = { timeZone: "America/Chicago", coached: null };
const programs = sources.map((program) => checkoutProgram(program, context));

describe("the program a checkout address names (docs/product.md, Business constants and limits: trimmed, case-insensitive)", () => {
  it("reads the key, still encoded, from /checkout/<key>", () => {
    expect(keyFromPath("/checkout/AI_ACCELERATOR")).toBe("AI_ACCELERATOR");
    expect(keyFromPath("/checkout/growth_mindset%20")).toBe("growth_mindset%20");
    expect(keyFromPath("/checkout/Os_Accelerator/")).toBe("Os_Accelerator");
    expect(keyFromPath("/checkout")).toBeNull();
    expect(keyFromPath("/checkout/")).toBeNull();
    expect(keyFromPath("/checkout/a/b")).toBeNull();
    expect(keyFromPath("/mindset")).toBeNull();
  });

  it("finds each program at its key however it is spelled", () => {
    expect(programAt(programs, "/checkout/growth_mindset%20")?.name).toBe("Growth Mindset Mastery");
    expect(programAt(programs, "/checkout/ai_accelerator")?.name).toBe("AI Advisor Accelerator");
    expect(programAt(programs, "/checkout/Os_Accelerator")?.name).toBe("Advisor OS Accelerator");
    expect(programAt(programs, "/checkout/%20OS_ACCELERATOR%20")?.name).toBe("Advisor OS Accelerator");
  });

  it("finds nothing for an unknown key, the shell's own address or a deeper path", () => {
    for (const path of [
      "/checkout/PLATINUM",
      "/checkout/key-lookup",
      "/checkout/success",
      "/checkout/a/GROWTH_MINDSET",
    ]) {
      expect(programAt(programs, path), path).toBeUndefined();
    }
  });
});

describe("what the island receives of a program", () => {
  it("keeps the checkout's fields and drops the rest of the program's content", () => {
    const [first] = sources;
    const shipped = checkoutProgram(first!, context);
    expect(Object.keys(shipped).sort()).toEqual(
      [
        "access",
        "applyPage",
        "checkoutKey",
        "coached",
        "cohort",
        "course",
        "description",
        "image",
        "imageAlt",
        "name",
        "page",
        "priceCents",
        "stripeLookupKey",
      ].sort(),
    );
    expect(shipped.stripeLookupKey).toBe(first!.stripeLookupKey);
    expect(shipped.page).toBe(first!.page);
  });

  it("names the program's course in the member area, where an owner opens it", () => {
    const mindset = sources.find((p) => p.checkoutKey === "GROWTH_MINDSET")!;
    expect(checkoutProgram(mindset, context).course).toBe("/portal/courses/growth-mindset");
  });

  it("carries a cohort program's start days with the business's time zone, and none for a self-paced one", () => {
    const ai = sources.find((p) => p.checkoutKey === "AI_ACCELERATOR")!;
    expect(checkoutProgram(ai, context).cohort).toEqual({
      starts: ai.cohort!.starts,
      timeZone: "America/Chicago",
      sample: ai.cohort!.sample,
    });
    expect(programs.find((p) => p.checkoutKey === "GROWTH_MINDSET")!.cohort).toBeNull();
  });
});

describe("the checkout's first note: what opens when", () => {
  const copy: CohortCopy = {
    checkout: {
      next: "Orientation opens now; your cohort starts {date}",
      started: "Orientation and the weeks so far open now; your cohort started {date}",
    },
    closed: "Enrolment is closed until the next cohort is scheduled.",
    ask: "Ask about the next cohort",
  };
  const cohortProgram = { cohort: { starts: ["2027-01-11", "2027-04-12"], timeZone: "America/Chicago", sample: true } };

  it("is 'Instant access after payment' for a self-paced program", () => {
    expect(accessNote({ cohort: null }, copy, new Date())).toEqual({
      text: INSTANT_ACCESS,
      sample: false,
      cohort: null,
    });
  });

  it("names the cohort a buyer joins today, and its first day, instead of instant access", () => {
    expect(accessNote(cohortProgram, copy, new Date("2026-11-28T18:00:00Z"))).toEqual({
      text: "Orientation opens now; your cohort starts Monday, January 11, 2027",
      sample: true,
      cohort: { start: "2027-01-11", started: false },
    });
    expect(accessNote(cohortProgram, copy, new Date("2027-01-20T18:00:00Z"))?.text).toBe(
      "Orientation and the weeks so far open now; your cohort started Monday, January 11, 2027",
    );
    expect(accessNote(cohortProgram, copy, new Date("2027-01-26T18:00:00Z"))?.text).toBe(
      "Orientation opens now; your cohort starts Monday, April 12, 2027",
    );
  });

  it("is none when no cohort is open to join: the program cannot be bought", () => {
    expect(accessNote(cohortProgram, copy, new Date("2027-04-27T18:00:00Z"))).toBeNull();
    expect(refusalOf(409, { code: "enrolment_closed" })).toBe("enrolment_closed");
  });
});

describe("Back", () => {
  const origin = "https://advisoraccelerator.com";

  it("returns to the previous page when it was a page of this site in this tab", () => {
    expect(returnsToPreviousPage(`${origin}/mindset`, origin, 2)).toBe(true);
  });

  it("follows its link to the program's page otherwise", () => {
    // Another site (a search result, Stripe's page after a cancel), no referrer, or a new tab.
    expect(returnsToPreviousPage("https://checkout.stripe.com/c/pay/cs_test_1", origin, 3)).toBe(false);
    expect(returnsToPreviousPage("https://advisoraccelerator.com.evil.example/", origin, 3)).toBe(false);
    expect(returnsToPreviousPage("", origin, 3)).toBe(false);
    expect(returnsToPreviousPage("not a url", origin, 3)).toBe(false);
    expect(returnsToPreviousPage(`${origin}/mindset`, origin, 1)).toBe(false);
  });
});

describe("the visit's first touch, as src/scripts/visit.ts stored it", () => {
  it("reads back what the visit recorded", () => {
    const recorded = firstTouch(null, new URL("https://advisoraccelerator.com/mindset?utm_source=ads"), "");
    expect(parseAttribution(JSON.stringify(recorded))).toEqual({ landing_page: "/mindset", utm_source: "ads" });
  });

  it("keeps strings only, and nothing from a missing or broken record", () => {
    expect(parseAttribution('{"utm_source":"x","utm_term":7,"referrer":null}')).toEqual({ utm_source: "x" });
    for (const raw of [null, "", "not json", "[]", "null", '"text"'])
      expect(parseAttribution(raw), String(raw)).toBeNull();
  });
});

describe("a program the customer already has (the checkout function's rule: buyer_order_state)", () => {
  const order = (product_key: string | null, order_status: string | null, payment_status: string | null) => ({
    product_key,
    order_status,
    payment_status,
  });

  it("owns it with a completed order, whatever else there is", () => {
    expect(ownership([order("GROWTH_MINDSET", "completed", "paid")], "GROWTH_MINDSET")).toBe("owned");
    expect(
      ownership(
        [order("GROWTH_MINDSET", "refunded", "paid"), order("GROWTH_MINDSET", "completed", "paid")],
        "GROWTH_MINDSET",
      ),
    ).toBe("owned");
    expect(
      ownership(
        [order("GROWTH_MINDSET", "pending", "unpaid"), order("GROWTH_MINDSET", "completed", "paid")],
        "GROWTH_MINDSET",
      ),
    ).toBe("owned");
  });

  it("is paying for it while a bank payment clears: pending and unpaid", () => {
    expect(ownership([order("AI_ACCELERATOR", "pending", "unpaid")], "AI_ACCELERATOR")).toBe("processing");
  });

  it("has nothing with a refunded, canceled or failed order, or one for another program", () => {
    for (const status of ["refunded", "canceled", "failed"])
      expect(ownership([order("OS_ACCELERATOR", status, "paid")], "OS_ACCELERATOR"), status).toBe("none");
    expect(ownership([order("OS_ACCELERATOR", "pending", "paid")], "OS_ACCELERATOR")).toBe("none");
    expect(ownership([order("GROWTH_MINDSET", "completed", "paid")], "OS_ACCELERATOR")).toBe("none");
    expect(ownership([order(null, "completed", "paid")], "OS_ACCELERATOR")).toBe("none");
    expect(ownership([], "OS_ACCELERATOR")).toBe("none");
  });

  it("matches the order's key trimmed and case-insensitively", () => {
    expect(ownership([order(" growth_mindset ", "completed", "paid")], "GROWTH_MINDSET")).toBe("owned");
  });
});

describe("the checkout function's refusal of a second purchase", () => {
  it("sits out a launch-day rush once, by itself: only a 429 whose wait is a few seconds", () => {
    const rush = { error: "Too many requests in a short time. Please try again later.", code: "rate_limited" };
    expect(rushWaitOf(429, { ...rush, retry_after: 1 })).toBe(1);
    expect(rushWaitOf(429, { ...rush, retry_after: RUSH_WAIT_MAX_SECONDS })).toBe(RUSH_WAIT_MAX_SECONDS);
    // One buyer's own limit (an hour) is not waited out on the page.
    expect(rushWaitOf(429, { ...rush, retry_after: 3_600 })).toBeNull();
    for (const body of [null, {}, { retry_after: "1" }, { retry_after: 0 }, { retry_after: 1.5 }]) {
      expect(rushWaitOf(429, body), JSON.stringify(body)).toBeNull();
    }
    expect(rushWaitOf(502, { ...rush, retry_after: 1 })).toBeNull();
  });

  it("reads the code of a 409", () => {
    expect(refusalOf(409, { error: "You already own it.", code: "already_owned" })).toBe("already_owned");
    expect(refusalOf(409, { error: "Still clearing.", code: "payment_processing" })).toBe("payment_processing");
    expect(refusalOf(409, { error: "Sign in to continue.", code: "sign_in_required" })).toBe("sign_in_required");
  });

  it("is no refusal for any other status, body or code: the general failure", () => {
    expect(refusalOf(400, { error: "x", code: "already_owned" })).toBeNull();
    expect(refusalOf(500, null)).toBeNull();
    for (const body of [null, "already_owned", { error: "x" }, { code: "other" }, []])
      expect(refusalOf(409, body), JSON.stringify(body)).toBeNull();
  });
});

describe("the checkout that left for Stripe", () => {
  const now = Date.UTC(2026, 10, 27, 12);
  const record = (fields: Record<string, unknown>) =>
    JSON.stringify({ key: "GROWTH_MINDSET", email: "dana@example.com", at: now - 60_000, ...fields });

  it("is found for its program, with the e-mail typed, for a few hours", () => {
    expect(parsePendingCheckout(record({}), "GROWTH_MINDSET", now)).toEqual({
      key: "GROWTH_MINDSET",
      email: "dana@example.com",
      at: now - 60_000,
    });
    // The key lookup page's spelling of the key finds it too.
    expect(parsePendingCheckout(record({}), "growth_mindset%20", now)?.email).toBe("dana@example.com");
    expect(
      parsePendingCheckout(record({ at: now - PENDING_CHECKOUT_TTL_MS + 1 }), "GROWTH_MINDSET", now),
    ).not.toBeNull();
  });

  it("is forgotten once expired, from the future, for another program, or broken", () => {
    expect(parsePendingCheckout(record({ at: now - PENDING_CHECKOUT_TTL_MS }), "GROWTH_MINDSET", now)).toBeNull();
    expect(parsePendingCheckout(record({ at: now + 60_000 }), "GROWTH_MINDSET", now)).toBeNull();
    expect(parsePendingCheckout(record({}), "OS_ACCELERATOR", now)).toBeNull();
    for (const raw of [null, "", "not json", "null", "[]", record({ email: 7 }), record({ at: "yesterday" })])
      expect(parsePendingCheckout(raw, "GROWTH_MINDSET", now), String(raw)).toBeNull();
  });

  it("expires after a few hours", () => {
    expect(PENDING_CHECKOUT_TTL_MS).toBeGreaterThanOrEqual(60 * 60 * 1000);
    expect(PENDING_CHECKOUT_TTL_MS).toBeLessThanOrEqual(6 * 60 * 60 * 1000);
  });
});
