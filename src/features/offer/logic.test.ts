import { describe, expect, it } from "vitest";
import type { OfferPayment } from "@advisor-accelerator/shared/offer-options.ts";
import { askOffer, openOffer, optionButton, optionValue, planTotal, scheduleOf, tokenOf } from "./logic";

const TOKEN = "A".repeat(40) + "b-_";
const payment: OfferPayment = {
  options: [
    { kind: "in_full", amountCents: 3500000 },
    { kind: "plan", name: "Six monthly payments", instalmentsCents: Array(6).fill(600000), feeCents: 100000 },
  ],
  membership: { monthlyCents: 45000, startsOn: "2027-04-11" },
  terms: "Terms.",
};

const reply =
  (status: number, body: unknown): typeof fetch =>
  async () =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

describe("the offer link", () => {
  it("takes the token from /offer/<token>, with or without a trailing slash, and nothing else", () => {
    expect(tokenOf(`/offer/${TOKEN}`)).toBe(TOKEN);
    expect(tokenOf(`/offer/${TOKEN}/`)).toBe(TOKEN);
    expect(tokenOf(`/offer/${TOKEN.slice(1)}`)).toBeNull();
    expect(tokenOf(`/offer/${TOKEN}x`)).toBeNull();
    expect(tokenOf("/offer/link")).toBeNull();
  });
});

describe("asking the function", () => {
  it("says a cut-short link is not valid without asking", async () => {
    const never: typeof fetch = async () => {
      throw new Error("asked");
    };
    expect(await openOffer("u", `/offer/${TOKEN.slice(3)}`, never)).toMatchObject({
      kind: "closed",
      code: "not_found",
    });
  });

  it("posts the token, and the option when one is chosen, as JSON", async () => {
    const sent: RequestInit[] = [];
    const spy: typeof fetch = async (_url, init) => {
      sent.push(init!);
      return new Response(JSON.stringify({ url: "https://checkout.stripe.com/c/pay/cs_test_1" }), { status: 200 });
    };
    expect(await askOffer("https://p.supabase.co/functions/v1", TOKEN, "plan:1", spy)).toEqual({
      kind: "checkout",
      url: "https://checkout.stripe.com/c/pay/cs_test_1",
    });
    expect(sent[0]!.method).toBe("POST");
    expect(JSON.parse(String(sent[0]!.body))).toEqual({ token: TOKEN, option: "plan:1" });
  });

  it("reads a used, withdrawn, expired or unknown link as closed, with the function's words", async () => {
    for (const [status, code] of [
      [410, "paid"],
      [410, "withdrawn"],
      [410, "expired"],
      [404, "not_found"],
      [409, "cohort_closed"],
    ] as const) {
      expect(await askOffer("u", TOKEN, undefined, reply(status, { code, error: `Because ${code}.` }))).toEqual({
        kind: "closed",
        code,
        message: `Because ${code}.`,
      });
    }
  });

  it("says what to do when the network or the function fails, or the connection is limited", async () => {
    const offline: typeof fetch = async () => {
      throw new TypeError("Failed to fetch");
    };
    expect((await askOffer("u", TOKEN, undefined, offline)).kind).toBe("failed");
    expect(await askOffer("u", TOKEN, undefined, reply(429, { code: "rate_limited" }))).toMatchObject({
      kind: "failed",
      message: expect.stringMatching(/wait a few minutes/),
    });
    const gateway: typeof fetch = async () => new Response("<html>Bad gateway</html>", { status: 502 });
    expect(await askOffer("u", TOKEN, undefined, gateway)).toEqual({
      kind: "failed",
      message: "Your offer could not be opened. Please try again.",
    });
  });
});

describe("each way to pay, as the page shows it", () => {
  it("dates a plan's payments monthly from today, on the same day, the last day in a short month", () => {
    expect(scheduleOf(payment.options[1]!, "2027-01-31").map((p) => p.day)).toEqual([
      "2027-01-31",
      "2027-02-28",
      "2027-03-31",
      "2027-04-30",
      "2027-05-31",
      "2027-06-30",
    ]);
    expect(scheduleOf(payment.options[0]!, "2027-01-31")).toEqual([{ day: "2027-01-31", amountCents: 3500000 }]);
  });

  it("names the option the function takes, its button and a plan's total with its fee", () => {
    expect(payment.options.map((o) => optionValue(payment, o))).toEqual(["in_full", "plan:1"]);
    expect(payment.options.map(optionButton)).toEqual(["Pay $35,000", "Start the plan: $6,000 today"]);
    expect(planTotal(payment.options[1] as Extract<(typeof payment.options)[1], { kind: "plan" }>)).toBe(
      "$36,000 in all, including a $1,000 plan fee.",
    );
  });
});
