/**
 * The checkout request, as the page builds it and as `stripe-checkout` reads it: the function
 * refuses whatever the catalogue, the site's origins or an e-mail check would not allow.
 */
import { describe, expect, it } from "vitest";
import { checkoutRequest } from "../../packages/shared/checkout-request.ts";
import { readCheckoutRequest } from "../../functions/stripe-checkout/request.ts";

const SITE = "https://advisoraccelerator.com";
const ORIGINS = [SITE, "https://www.advisoraccelerator.com"];
const program = { checkoutKey: "OS_ACCELERATOR", stripeLookupKey: "os_accelerator" };
const valid = () => checkoutRequest(SITE, program, "Buyer@Example.com", { utm_source: "newsletter" });

describe("checkoutRequest", () => {
  it("builds the spec's body: lookup key as price_id, success URL with Stripe's placeholder, cancel URL back to the program", () => {
    expect(valid()).toEqual({
      price_id: "os_accelerator",
      mode: "payment",
      success_url: `${SITE}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${SITE}/checkout/OS_ACCELERATOR`,
      customer_email: "Buyer@Example.com",
      attribution: { utm_source: "newsletter" },
    });
  });

  it("keeps only the attribution fields an order records, cut to 200 characters", () => {
    const body = checkoutRequest(SITE, program, "a@b.co", { utm_campaign: "x".repeat(300), gclid: "1", referrer: "" });
    expect(body.attribution).toEqual({ utm_campaign: "x".repeat(200) });
    expect("attribution" in checkoutRequest(SITE, program, "a@b.co", null)).toBe(false);
  });
});

describe("readCheckoutRequest", () => {
  it("accepts the page's request: the catalogue product, the e-mail in lower case, the URLs as sent", () => {
    const read = readCheckoutRequest(valid(), ORIGINS);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.request.product.key).toBe("OS_ACCELERATOR");
    expect(read.request.product.priceCents).toBe(299_900);
    expect(read.request.email).toBe("buyer@example.com");
    expect(read.request.successUrl).toBe(`${SITE}/checkout/success?session_id={CHECKOUT_SESSION_ID}`);
    expect(read.request.attribution).toEqual({ utm_source: "newsletter" });
  });

  const refused: [string, (body: Record<string, unknown>) => unknown, RegExp][] = [
    ["a price outside the catalogue", (b) => ({ ...b, price_id: "price_1Cheap" }), /price_id/],
    ["a checkout key instead of a lookup key", (b) => ({ ...b, price_id: "OS_ACCELERATOR" }), /price_id/],
    ["a subscription", (b) => ({ ...b, mode: "subscription" }), /mode/],
    ["no e-mail", (b) => ({ ...b, customer_email: "" }), /customer_email/],
    ["an address without a domain", (b) => ({ ...b, customer_email: "buyer@" }), /customer_email/],
    ["an address with a space", (b) => ({ ...b, customer_email: "bu yer@example.com" }), /customer_email/],
    ["an e-mail that is not a string", (b) => ({ ...b, customer_email: ["a@b.co"] }), /customer_email/],
    [
      "a success URL on another site",
      (b) => ({ ...b, success_url: "https://evil.example/checkout/success" }),
      /success_url/,
    ],
    [
      "a look-alike host",
      (b) => ({ ...b, success_url: "https://advisoraccelerator.com.evil.example/" }),
      /success_url/,
    ],
    [
      "credentials in the URL",
      (b) => ({ ...b, success_url: "https://advisoraccelerator.com@evil.example/" }),
      /success_url/,
    ],
    [
      "http instead of https",
      (b) => ({ ...b, success_url: "http://advisoraccelerator.com/checkout/success" }),
      /success_url/,
    ],
    ["a javascript: URL", (b) => ({ ...b, cancel_url: "javascript:alert(1)" }), /cancel_url/],
    ["a relative URL", (b) => ({ ...b, cancel_url: "/checkout/OS_ACCELERATOR" }), /cancel_url/],
    ["attribution that is not an object", (b) => ({ ...b, attribution: "utm_source=x" }), /attribution/],
    ["a body that is an array", () => [valid()], /JSON object/],
    ["a body that is null", () => null, /JSON object/],
  ];
  it.each(refused)("refuses %s with a 400 naming the field", (_, change, message) => {
    const read = readCheckoutRequest(change(valid() as unknown as Record<string, unknown>), ORIGINS);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.status).toBe(400);
    expect(read.error).toMatch(message);
  });

  it("refuses every request when no origin is configured", () => {
    expect(readCheckoutRequest(valid(), []).ok).toBe(false);
  });

  it("drops attribution fields it does not record and non-string values", () => {
    const read = readCheckoutRequest(
      { ...valid(), attribution: { utm_source: " ads ", evil: "x", utm_medium: 5 } },
      ORIGINS,
    );
    expect(read.ok && read.request.attribution).toEqual({ utm_source: "ads" });
  });
});
