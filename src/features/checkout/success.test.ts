/** The success page's views (docs/product.md, Screens and routes: Payment success; a pending payment is never called successful). */
import { describe, expect, it } from "vitest";
import type { CheckoutStatus } from "@advisor-accelerator/shared/checkout-status.ts";
import { userFromPersistedSession } from "~/features/auth/persisted-session";
import { fetchStatus, nextStepsFor, orderIdOf, signedInUser, successView } from "./success";

const status = (state: CheckoutStatus["state"], email: string | null = "dana@example.com"): CheckoutStatus => ({
  state,
  program: { name: "Growth Mindset Mastery", key: "GROWTH_MINDSET", course: "/portal/courses/growth-mindset" },
  amountCents: 30_000,
  currency: "usd",
  email,
  reference: "3F9A27C1",
  cohortStart: null,
  accountInUse: null,
});

describe("the success page's view of its session", () => {
  it("paid: the spec's page, with the program, the amount paid and the address (the reference is the Order ID, apart)", () => {
    const view = successView(status("paid"), false);
    expect(view.state).toBe("paid");
    expect(view.facts).toEqual([
      ["Program", "Growth Mindset Mastery"],
      ["Amount paid", "$300"],
      ["Receipt and access sent to", "dana@example.com"],
    ]);
  });

  it("a bank debit still clearing is 'processing', never paid, and says no amount was paid yet", () => {
    const view = successView(status("processing"), false);
    expect(view.state).toBe("processing");
    expect(view.facts.map(([label]) => label)).toEqual(["Program", "Amount", "E-mail"]);
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

describe("the paid page's next steps fit the buyer", () => {
  const paid = (accountInUse: boolean | null, email: string | null = "dana@example.com") => ({
    ...status("paid", email),
    accountInUse,
  });
  const dana = { id: "u1", email: "Dana@Example.com" };

  it("a new buyer, signed out: the steps with the set-password link", () => {
    expect(nextStepsFor(paid(false), null)).toBe("new");
  });

  it("an account already in use (a password set): no password to set, signed in here or not", () => {
    expect(nextStepsFor(paid(true), null)).toBe("returning");
    expect(nextStepsFor(paid(true), { id: "u2", email: "someone@example.com" })).toBe("returning");
  });

  it("signed in on this device as the buyer: no password to set, before the webhook has said too", () => {
    expect(nextStepsFor(paid(null), dana)).toBe("returning");
    expect(nextStepsFor(paid(false), dana)).toBe("returning");
    // The status not read (or not asked: no session id): whoever is signed in here.
    expect(nextStepsFor(null, dana)).toBe("returning");
    expect(nextStepsFor(paid(null, null), { id: "u1" })).toBe("returning");
  });

  it("signed in as someone else than the buyer: still the new buyer's steps", () => {
    expect(nextStepsFor(paid(false), { id: "u2", email: "someone@example.com" })).toBe("new");
    expect(nextStepsFor(paid(null), { id: "u2", email: "someone@example.com" })).toBe("new");
  });

  it("nothing known, nobody signed in: the new buyer's steps (which tell a client to sign in as usual)", () => {
    expect(nextStepsFor(null, null)).toBe("new");
    expect(nextStepsFor(paid(null), null)).toBe("new");
  });
});

describe("the Order ID", () => {
  it("is the order reference (SHA-256's first 8 hex digits, upper case) from the session id alone", async () => {
    // The same as `sha256sum` gives, and as the database's stripe_user_orders.order_reference
    // (tests/integration/after-payment.test.ts holds the two together).
    expect(await orderIdOf("cs_test_a1B2c3d4e5")).toBe("02C12710");
    expect(await orderIdOf("cs_test_a1B2c3d4e6")).not.toBe("02C12710");
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

describe("who is signed in, read as the account button reads it", () => {
  const NOW = 1_800_000_000;
  const user = { id: "6f1c…", email: "dana@example.com" };
  const cases: [string, string | null][] = [
    ["nothing stored", null],
    ["not JSON", "{"],
    ["JSON null", "null"],
    ["a renewable session", JSON.stringify({ user, refresh_token: "r1", expires_at: NOW - 10 })],
    ["an unexpired session without a refresh token", JSON.stringify({ user, refresh_token: "", expires_at: NOW + 60 })],
    ["an expired session without a refresh token", JSON.stringify({ user, expires_at: NOW - 1 })],
    ["no user", JSON.stringify({ refresh_token: "r1" })],
    ["a user without an id", JSON.stringify({ user: { email: "x@example.com" }, refresh_token: "r1" })],
    ["a user without an e-mail", JSON.stringify({ user: { id: "u2" }, refresh_token: "r1" })],
  ];
  it.each(cases)("%s: the same user as the account button", (_, raw) => {
    expect(signedInUser(raw, NOW)).toEqual(userFromPersistedSession(raw, NOW));
  });
  it("finds the signed-in buyer of a renewable session", () => {
    expect(signedInUser(cases[3]![1], NOW)).toEqual(user);
  });
});
