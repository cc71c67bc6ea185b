/** The success page's views (docs/product.md, Screens and routes: Payment success; a pending payment is never called successful). */
import { describe, expect, it } from "vitest";
import type { CheckoutStatus } from "@advisor-accelerator/shared/checkout-status.ts";
import { fetchStatus, successView } from "./success";

const status = (state: CheckoutStatus["state"], email: string | null = "dana@example.com"): CheckoutStatus => ({
  state,
  program: { name: "Growth Mindset Mastery", key: "GROWTH_MINDSET", course: "/portal/courses/growth-mindset" },
  amountCents: 30_000,
  currency: "usd",
  email,
  reference: "3F9A27C1",
  cohortStart: null,
});

describe("the success page's view of its session", () => {
  it("paid: the spec's page, with the program, the amount paid, the address and the order reference", () => {
    const view = successView(status("paid"), false);
    expect(view.state).toBe("paid");
    expect(view.facts).toEqual([
      ["Program", "Growth Mindset Mastery"],
      ["Amount paid", "$300"],
      ["Receipt and access sent to", "dana@example.com"],
      ["Order reference", "3F9A27C1"],
    ]);
  });

  it("a bank debit still clearing is 'processing', never paid, and says no amount was paid yet", () => {
    const view = successView(status("processing"), false);
    expect(view.state).toBe("processing");
    expect(view.facts.map(([label]) => label)).toEqual(["Program", "Amount", "E-mail", "Order reference"]);
    expect(view.fields).toMatchObject({ program: "Growth Mindset Mastery", email: "dana@example.com" });
  });

  it("a failed payment says so and offers the program's checkout again", () => {
    const view = successView(status("failed"), false);
    expect(view.state).toBe("failed");
    expect(view.checkout).toBe("/checkout/GROWTH_MINDSET");
  });

  it("an open or expired session was not paid: 'incomplete'", () => {
    expect(successView(status("open"), false).state).toBe("incomplete");
    expect(successView(status("expired"), false).state).toBe("incomplete");
  });

  it("while asking it is 'checking'; when the status cannot be read, 'unknown' (no success claimed)", () => {
    expect(successView(null, false).state).toBe("checking");
    expect(successView(null, true).state).toBe("unknown");
  });

  it("a cohort program's buyer sees the day their cohort starts, once paid or while paying; not after a failure", () => {
    const cohort = (state: CheckoutStatus["state"]): CheckoutStatus => ({
      ...status(state),
      program: {
        name: "AI Advisor Accelerator",
        key: "AI_ACCELERATOR",
        course: "/portal/courses/ai-advisor-accelerator",
      },
      cohortStart: "2027-01-11",
    });
    expect(successView(cohort("paid"), false).facts[1]).toEqual(["Your cohort starts", "Monday, January 11, 2027"]);
    expect(successView(cohort("processing"), false).facts[1]).toEqual([
      "Your cohort starts",
      "Monday, January 11, 2027",
    ]);
    expect(successView(cohort("failed"), false).facts.map(([label]) => label)).not.toContain("Your cohort starts");
  });

  it("without an address it names none", () => {
    const view = successView(status("processing", null), false);
    expect(view.facts.map(([label]) => label)).not.toContain("E-mail");
    expect(view.fields.email).toBe("the address you gave");
  });
});

describe("asking checkout-status", () => {
  /** A server answering as the function does: `answers` in turn, JSON bodies. */
  async function functionAnswering(answers: [number, unknown][]) {
    const { createServer } = await import("node:http");
    const asked: string[] = [];
    const server = createServer((request, response) => {
      asked.push(request.url ?? "");
      const [code, body] = answers[Math.min(asked.length - 1, answers.length - 1)]!;
      response.writeHead(code, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    return { url: `http://127.0.0.1:${port}/functions/v1`, asked, close: () => server.close() };
  }

  it("sits out a launch-day rush's short wait once, then shows the answer", async () => {
    const fn = await functionAnswering([
      [429, { error: "Too many requests in a short time. Please try again later.", retry_after: 1 }],
      [200, status("paid")],
    ]);
    const waits: number[] = [];
    const answer = await fetchStatus(fn.url, "cs_test_a1abcdefgh", async (s) => void waits.push(s));
    fn.close();
    expect(waits).toEqual([1]);
    expect(fn.asked).toEqual(["/functions/v1/checkout-status?session_id=cs_test_a1abcdefgh", expect.any(String)]);
    expect(answer).toEqual(status("paid"));
  });

  it("does not wait out a long refusal, nor a second one: the page says it cannot tell yet", async () => {
    const long = await functionAnswering([[429, { retry_after: 3600 }]]);
    expect(await fetchStatus(long.url, "cs_test_a1abcdefgh", async () => undefined)).toBeNull();
    expect(long.asked).toHaveLength(1);
    long.close();
    const twice = await functionAnswering([[429, { retry_after: 1 }]]);
    expect(await fetchStatus(twice.url, "cs_test_a1abcdefgh", async () => undefined)).toBeNull();
    expect(twice.asked).toHaveLength(2);
    twice.close();
  });
});
