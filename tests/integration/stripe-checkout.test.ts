/**
 * functions/stripe-checkout through the local stack, called as the checkout page calls it
 * (supabase-js `functions.invoke`, the anon key), with the real `stripe` library talking to the
 * stack's Stripe stand-in. Refused requests are counted, tried and accepted, and must create
 * nothing at Stripe.
 */
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutRequest } from "../../packages/shared/checkout-request.ts";
import { stripeClient } from "../../functions/_shared/stripe.ts";
import { MAX_BODY_BYTES } from "../../functions/stripe-checkout/handler.ts";
import { startTestStack, type TestStack } from "@advisor-accelerator/local-stack";

const SITE = "http://localhost:4321";
const OS = { checkoutKey: "OS_ACCELERATOR", stripeLookupKey: "os_accelerator" };

describe("stripe-checkout", () => {
  let stack: TestStack;
  let stripe: Stripe;
  const hostile = { tried: 0, accepted: 0 };

  const call = (body: unknown, origin = SITE, method = "POST") =>
    fetch(`${stack.url}/functions/v1/stripe-checkout`, {
      method,
      headers: {
        origin,
        "content-type": "application/json",
        apikey: stack.anonKey,
        authorization: `Bearer ${stack.anonKey}`,
      },
      body: method === "POST" ? (typeof body === "string" ? body : JSON.stringify(body)) : undefined,
    });
  const counts = async () => ({
    sessions: (await stripe.checkout.sessions.list({ limit: 100 })).data.length,
    customers: (await stripe.customers.list({ limit: 100 })).data.length,
  });

  beforeAll(async () => {
    stack = await startTestStack({ name: "PGlite" }, { seed: false });
    stripe = stripeClient({ STRIPE_SECRET_KEY: stack.stripe.secretKey, STRIPE_API_URL: stack.url });
  }, 60_000);
  afterAll(async () => {
    console.log(`hostile checkout requests: tried ${hostile.tried}, accepted ${hostile.accepted}`);
    await stack?.stop();
  });

  it("creates a Checkout Session for the program's catalogue price, tied to a customer, with key and attribution", async () => {
    const { data, error } = await stack.client().functions.invoke("stripe-checkout", {
      body: checkoutRequest(SITE, OS, "New.Buyer@Example.com", { utm_source: "podcast", landing_page: "/advisor-os" }),
      headers: { origin: SITE },
    });
    expect(error).toBeNull();
    const url = (data as { url: string }).url;
    expect(url).toMatch(new RegExp(`^${stack.url}/_local/stripe/checkout/cs_test_`));
    const session = await stripe.checkout.sessions.retrieve(/cs_test_[A-Za-z0-9]+/.exec(url)![0], {
      expand: ["line_items"],
    });
    expect(session).toMatchObject({
      mode: "payment",
      amount_total: 299_900,
      currency: "usd",
      success_url: `${SITE}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${SITE}/checkout/OS_ACCELERATOR`,
      metadata: { product_key: "OS_ACCELERATOR", utm_source: "podcast", landing_page: "/advisor-os" },
    });
    expect(session.line_items!.data[0]!.price!.lookup_key).toBe("os_accelerator");
    const customer = await stripe.customers.retrieve(session.customer as string);
    expect((customer as Stripe.Customer).email).toBe("new.buyer@example.com");
  });

  it("answers a visitor whose page was built with the project's publishable key, which is not a JWT", async () => {
    // supabase-js sends the key itself as the bearer token when no one is signed in. Hosted
    // Supabase's gateway check (verify_jwt) accepts only JWTs, so supabase/config.toml turns it off
    // for the checkout: this call would get the gateway's 401 "Invalid JWT" otherwise.
    const publishable = "sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH";
    const response = await fetch(`${stack.url}/functions/v1/stripe-checkout`, {
      method: "POST",
      headers: {
        origin: SITE,
        "content-type": "application/json",
        apikey: publishable,
        authorization: `Bearer ${publishable}`,
      },
      body: JSON.stringify(checkoutRequest(SITE, OS, "publishable@example.com", {})),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { url: string }).url).toMatch(/\/_local\/stripe\/checkout\/cs_test_/);
  });

  it("reuses the buyer's Stripe customer on a second checkout", async () => {
    const first = (await (await call(checkoutRequest(SITE, OS, "again@example.com"))).json()) as { url: string };
    const second = (await (await call(checkoutRequest(SITE, OS, "Again@example.com"))).json()) as { url: string };
    const customerOf = async (url: string) =>
      (await stripe.checkout.sessions.retrieve(/cs_test_[A-Za-z0-9]+/.exec(url)![0])).customer;
    expect(await customerOf(first.url)).toBe(await customerOf(second.url));
  });

  it("refuses a price outside the catalogue, a foreign return URL, a bad e-mail, a wrong body or method: 4xx, nothing created", async () => {
    const valid = checkoutRequest(SITE, OS, "careful@example.com");
    const before = await counts();
    const cases: [string, unknown, number, string?][] = [
      ["a Stripe price id not in the catalogue", { ...valid, price_id: "price_1Cheap" }, 400],
      ["another program's key in the wrong form", { ...valid, price_id: "OS_ACCELERATOR" }, 400],
      ["a success_url on another site", { ...valid, success_url: "https://evil.example/thanks" }, 400],
      ["a cancel_url on another site", { ...valid, cancel_url: "https://evil.example/" }, 400],
      ["an e-mail without a domain", { ...valid, customer_email: "careful@" }, 400],
      ["no e-mail", { ...valid, customer_email: undefined }, 400],
      ["a subscription", { ...valid, mode: "subscription" }, 400],
      ["a body that is not JSON", "price_id=os_accelerator", 400],
      ["a JSON array", [valid], 400],
      ["a GET", valid, 405, "GET"],
    ];
    for (const [name, body, status, method] of cases) {
      hostile.tried++;
      const response = await call(body, SITE, method);
      if (response.ok) hostile.accepted++;
      expect(response.status, name).toBe(status);
      expect(((await response.json()) as { error: string }).error, name).toEqual(expect.any(String));
    }
    expect(await counts()).toEqual(before);
    expect(hostile.accepted).toBe(0);
  });

  it("refuses a body over 16 KB unread, whether it declares its length or streams it: 413, nothing created", async () => {
    // A hosted worker has 256 MB; the function stops reading at the first chunk past its limit
    // (functions/_shared/body.ts) instead of buffering whatever is sent.
    const valid = checkoutRequest(SITE, OS, "flood@example.com");
    const padded = JSON.stringify({ ...valid, padding: "x".repeat(MAX_BODY_BYTES) });
    const before = await counts();
    hostile.tried++;
    const declared = await call(padded);
    if (declared.ok) hostile.accepted++;
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ error: "The request is larger than 16 KB." });

    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 64 MB if nobody stops reading; the function stops after the first chunk.
        if (sent++ < 1024) controller.enqueue(chunk);
        else controller.close();
      },
    });
    hostile.tried++;
    const streamed = await fetch(`${stack.url}/functions/v1/stripe-checkout`, {
      method: "POST",
      headers: { origin: SITE, "content-type": "application/json", apikey: stack.anonKey },
      body: stream,
      duplex: "half",
    } as RequestInit);
    if (streamed.ok) hostile.accepted++;
    expect(streamed.status).toBe(413);
    expect(sent).toBeLessThan(1024);
    expect(await counts()).toEqual(before);
  });

  it("answers CORS only to the site's origins: the preflight and the answer", async () => {
    const preflight = (origin: string) =>
      fetch(`${stack.url}/functions/v1/stripe-checkout`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
      });
    const ours = await preflight(SITE);
    expect(ours.status).toBe(204);
    expect(ours.headers.get("access-control-allow-origin")).toBe(SITE);
    const theirs = await preflight("https://evil.example");
    expect(theirs.headers.get("access-control-allow-origin")).toBeNull();
    const refused = await call(checkoutRequest("https://evil.example", OS, "x@example.com"), "https://evil.example");
    expect(refused.status).toBe(400);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
  });
});
