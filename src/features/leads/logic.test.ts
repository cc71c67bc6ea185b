/** The consultation form's rules (src/features/leads/logic.ts): when a request goes, and what each answer means for the visitor. */
import { describe, expect, it } from "vitest";
import { leadRequest, MIN_FILL_MS } from "@advisor-accelerator/shared/lead.ts";
import { failureText, firstName, holdFor, outcomeOf, sendLead, storedAttribution, waitText } from "./logic";

describe("the consultation form", () => {
  it("holds a request sent sooner than a person fills the form in, so the function never takes them for a bot", () => {
    expect(holdFor(0)).toBe(MIN_FILL_MS + 250);
    expect(holdFor(1_000)).toBe(MIN_FILL_MS - 750);
    expect(holdFor(MIN_FILL_MS + 250)).toBe(0);
    expect(holdFor(60_000)).toBe(0);
  });

  it("reads the function's answers: accepted, answers refused field by field, too many requests, or a failure", () => {
    expect(outcomeOf(200, { ok: true })).toEqual({ kind: "sent" });
    expect(outcomeOf(400, { error: "x", errors: { email: "Please enter a valid email address." } })).toEqual({
      kind: "invalid",
      errors: { email: "Please enter a valid email address." },
    });
    expect(outcomeOf(429, { retry_after: 1800 })).toEqual({ kind: "limited", retryAfter: 1800 });
    expect(outcomeOf(429, null, "120")).toEqual({ kind: "limited", retryAfter: 120 });
    expect(outcomeOf(429, null, null)).toEqual({ kind: "limited", retryAfter: 3600 });
    // An answer the form cannot act on is a failure: never a confirmation it cannot vouch for.
    expect(outcomeOf(200, null)).toEqual({ kind: "failed" });
    expect(outcomeOf(400, { error: "The request body must be JSON." })).toEqual({ kind: "failed" });
    expect(outcomeOf(413, { error: "too large" })).toEqual({ kind: "failed" });
    expect(outcomeOf(503, { code: "BOOT_ERROR" })).toEqual({ kind: "failed" });
    expect(outcomeOf(502, "Bad gateway")).toEqual({ kind: "failed" });
  });

  it("posts the request as JSON and turns no answer at all into 'offline'", async () => {
    const body = leadRequest({ name: "Jordan", email: "j@example.com" }, "/get-started", 5_000);
    let sent: { url: string; init: RequestInit } | undefined;
    const answered = await sendLead("https://p.supabase.co/functions/v1/leads", body, (async (url, init) => {
      sent = { url: String(url), init: init! };
      return new Response(JSON.stringify({ ok: true }), { status: 200 });
    }) as typeof fetch);
    expect(answered).toEqual({ kind: "sent" });
    expect(sent!.url).toBe("https://p.supabase.co/functions/v1/leads");
    expect(sent!.init.method).toBe("POST");
    expect(JSON.parse(String(sent!.init.body))).toEqual(body);

    const down = await sendLead("https://p.supabase.co/functions/v1/leads", body, (async () => {
      throw new TypeError("Failed to fetch");
    }) as typeof fetch);
    expect(down).toEqual({ kind: "offline" });
    const html = await sendLead(
      "https://p.supabase.co/functions/v1/leads",
      body,
      (async () => new Response("<h1>502</h1>", { status: 502, headers: { "retry-after": "5" } })) as typeof fetch,
    );
    expect(html).toEqual({ kind: "failed" });
  });

  it("says what went wrong and when to try again, in words", () => {
    expect(failureText({ kind: "limited", retryAfter: 2_700 })).toBe(
      "We have received several requests from you in a short time, so new ones are paused. Please try again in about 45 minutes.",
    );
    expect(failureText({ kind: "offline" })).toMatch(/^Your request was not sent: we could not reach our server\./);
    expect(failureText({ kind: "failed" })).toMatch(/^Your request was not sent: something went wrong on our side\./);
    expect([30, 60, 61, 600, 3_300, 3_600, 5_400, 7_200].map(waitText)).toEqual([
      "in a minute",
      "in a minute",
      "in about 2 minutes",
      "in about 10 minutes",
      "in about an hour",
      "in about an hour",
      "in about an hour",
      "in about 2 hours",
    ]);
  });

  it("thanks the visitor by their first name", () => {
    expect(firstName("  Jordan  Reyes ")).toBe("Jordan");
    expect(firstName("Prince")).toBe("Prince");
  });

  it("reads the visit's first touch from storage, and nothing from a broken or blocked one", () => {
    const storage = (value: string | null) => ({ getItem: () => value });
    expect(storedAttribution("aa:attribution", storage('{"utm_source":"linkedin"}'))).toEqual({
      utm_source: "linkedin",
    });
    expect(storedAttribution("aa:attribution", storage("{not json"))).toBeNull();
    expect(storedAttribution("aa:attribution", storage("[1]"))).toBeNull();
    expect(storedAttribution("aa:attribution", storage(null))).toBeNull();
    expect(storedAttribution("aa:attribution", null)).toBeNull();
    const blocked = {
      getItem: () => {
        throw new DOMException("denied", "SecurityError");
      },
    };
    expect(storedAttribution("aa:attribution", blocked)).toBeNull();
  });
});
