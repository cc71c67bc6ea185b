/**
 * functions/stripe-checkout through the local stack, called as the checkout page calls it
 * (supabase-js `functions.invoke`, the anon key), with the real `stripe` library talking to the
 * stack's Stripe stand-in. Refused requests are counted, tried and accepted, and must create
 * nothing at Stripe. The flood tests call from loopback addresses of their own (127.0.0.2, …), as
 * separate visitors would, since the local gateway, like Supabase's, sets the client address.
 */
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { addDays, cohortAt } from "../../packages/shared/cohort.ts";
import { checkoutRequest } from "../../packages/shared/checkout-request.ts";
import { stripeClient } from "../../functions/_shared/stripe.ts";
import { CATALOGUE, TIME_ZONE } from "../../functions/_shared/catalogue.ts";
import { LIMITS, MAX_BODY_BYTES, seatFor } from "../../functions/stripe-checkout/handler.ts";
import { startTestStack, type TestStack } from "@advisor-accelerator/local-stack";
import { nextAddress, postFrom } from "../support/client-address.ts";
import { logTallies, Tally } from "../support/hostile.ts";

const SITE = "http://localhost:4321";
const OS = { checkoutKey: "OS_ACCELERATOR", stripeLookupKey: "os_accelerator" };
const AI = { checkoutKey: "AI_ACCELERATOR", stripeLookupKey: "ai_accelerator" };

describe("stripe-checkout", () => {
  let stack: TestStack;
  let stripe: Stripe;
  const bad = new Tally("checkout bad requests");
  const oversize = new Tally("oversize bodies");
  const flood = new Tally("checkout flood");
  const crossSite = new Tally("cross-origin posts");

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
    logTallies(bad, oversize, flood, crossSite);
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

  it("sells a seat in the cohort the rule picks today, and names it in the session for the webhook", async () => {
    const ai = CATALOGUE.find((p) => p.key === "AI_ACCELERATOR")!;
    const cohort = cohortAt(ai.cohortStarts, TIME_ZONE);
    const response = await call(checkoutRequest(SITE, AI, "cohort.buyer@example.com"));
    if (!cohort) {
      // Content lists no cohort open to join any more: the closed case below covers it.
      expect(response.status).toBe(409);
      return;
    }
    expect(response.status).toBe(200);
    const { url } = (await response.json()) as { url: string };
    const session = await stripe.checkout.sessions.retrieve(/cs_test_[A-Za-z0-9]+/.exec(url)![0]);
    expect(session.metadata).toMatchObject({ product_key: "AI_ACCELERATOR", cohort_start: cohort.start });
    // A self-paced program has no cohort.
    const os = (await (await call(checkoutRequest(SITE, OS, "cohort.buyer@example.com"))).json()) as { url: string };
    const osSession = await stripe.checkout.sessions.retrieve(/cs_test_[A-Za-z0-9]+/.exec(os.url)![0]);
    expect(osSession.metadata).not.toHaveProperty("cohort_start");
  });

  it("refuses a cohort program when no cohort is open to join (the last started over 14 days ago): 409, nothing created", async () => {
    const ai = CATALOGUE.find((p) => p.key === "AI_ACCELERATOR")!;
    const last = ai.cohortStarts.at(-1)!;
    // The business's noon, 15 days after the last cohort listed in content started.
    vi.useFakeTimers({ toFake: ["Date"], now: new Date(`${addDays(last, 15)}T18:00:00Z`) });
    try {
      expect(seatFor(ai).cohort).toBeNull();
      const before = await counts();
      const response = await call(checkoutRequest(SITE, AI, "too.late@example.com"));
      bad.count(response.ok);
      expect(response.status).toBe(409);
      const body = (await response.json()) as { error: string; code: string };
      expect(body.code).toBe("enrolment_closed");
      expect(body.error).toBe(
        "Enrolment in AI Advisor Accelerator is closed: no cohort is open to join. Book a call and we will tell you when the next one starts.",
      );
      expect(await counts()).toEqual(before);
      // The self-paced programs are sold as ever.
      expect((await call(checkoutRequest(SITE, OS, "too.late@example.com"))).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
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
      const response = await call(body, SITE, method);
      bad.count(response.ok);
      expect(response.status, name).toBe(status);
      expect(((await response.json()) as { error: string }).error, name).toEqual(expect.any(String));
    }
    expect(await counts()).toEqual(before);
    expect(bad.accepted).toBe(0);
  });

  it("refuses a body over 16 KB unread, whether it declares its length or streams it: 413, nothing created", async () => {
    // A hosted worker has 256 MB; the function stops reading at the first chunk past its limit
    // (functions/_shared/body.ts) instead of buffering whatever is sent.
    const valid = checkoutRequest(SITE, OS, "flood@example.com");
    const padded = JSON.stringify({ ...valid, padding: "x".repeat(MAX_BODY_BYTES) });
    const before = await counts();
    const declared = await call(padded);
    oversize.count(declared.ok);
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
    const streamed = await fetch(`${stack.url}/functions/v1/stripe-checkout`, {
      method: "POST",
      headers: { origin: SITE, "content-type": "application/json", apikey: stack.anonKey },
      body: stream,
      duplex: "half",
    } as RequestInit);
    oversize.count(streamed.ok);
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
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("takes posts from the site's own pages only: another origin 403, anything but JSON 415, nothing made at Stripe", async () => {
    const before = await counts();
    const json = JSON.stringify(checkoutRequest(SITE, OS, "cross-site@example.com"));
    const tries: [Record<string, string>, number][] = [
      [{ origin: "https://elsewhere.example", "content-type": "application/json" }, 403],
      [{ origin: "https://elsewhere.example", "content-type": "text/plain" }, 403],
      [{ origin: SITE, "content-type": "text/plain;charset=UTF-8" }, 415],
      [{ origin: SITE, "content-type": "application/x-www-form-urlencoded" }, 415],
    ];
    for (const [headers, status] of tries) {
      const answer = await fetch(`${stack.url}/functions/v1/stripe-checkout`, {
        method: "POST",
        headers: { apikey: stack.anonKey, authorization: `Bearer ${stack.anonKey}`, ...headers },
        body: json,
      });
      crossSite.count(answer.status === 200);
      expect(answer.status, JSON.stringify(headers)).toBe(status);
    }
    expect(await counts()).toEqual(before);
  });

  describe("a flood (LIMITS: per e-mail, per client address, and for everyone together)", () => {
    interface Refusal {
      url?: string;
      error?: string;
      code?: string;
      retry_after?: number;
    }
    const from = (address: string, email: string, headers: Record<string, string> = {}) =>
      postFrom<Refusal>(
        `${stack.url}/functions/v1/stripe-checkout`,
        JSON.stringify(checkoutRequest(SITE, OS, email)),
        address,
        { origin: SITE, apikey: stack.anonKey, ...headers },
      );
    let serial = 0;
    const unique = (name: string) => `${name}.${Date.now().toString(36)}${serial++}@example.com`;
    const expectRefused = (answer: Awaited<ReturnType<typeof from>>, atLeast: number, atMost: number) => {
      expect(answer.status).toBe(429);
      const wait = Number(answer.headers["retry-after"]);
      expect(wait).toBeGreaterThanOrEqual(atLeast);
      expect(wait).toBeLessThanOrEqual(atMost);
      expect(answer.body).toEqual({
        error: "Too many requests in a short time. Please try again later.",
        code: "rate_limited",
        retry_after: wait,
      });
    };

    it(`starts ${LIMITS.email.hits} checkouts an hour for one e-mail address, from anywhere; then 429 with Retry-After, and nothing created`, async () => {
      const email = unique("eager");
      for (let i = 0; i < LIMITS.email.hits; i++) expect((await from(nextAddress(), email)).status).toBe(200);
      const before = await counts();
      const refused = await from(nextAddress(), email);
      flood.count(refused.status === 200);
      expectRefused(refused, 3_500, 3_600);
      // The address is the limit, however it is written.
      const shouted = await from(nextAddress(), email.toUpperCase());
      flood.count(shouted.status === 200);
      expect(shouted.status).toBe(429);
      expect(await counts()).toEqual(before);
      // Another buyer is not held up.
      expect((await from(nextAddress(), unique("patient"))).status).toBe(200);
    });

    it(`starts ${LIMITS.address.hits} checkouts an hour from one client address, whatever X-Forwarded-For it sends; then 429`, async () => {
      const address = nextAddress();
      for (let i = 0; i < LIMITS.address.hits; i++) {
        // Faster than the shared ceiling would let through in a second: its window starts anew.
        await stack.db.query("delete from public.rate_limits where key = 'checkout:everyone'");
        // A forged header does not make a new visitor: the gateway sets the address.
        const answer = await from(address, unique("office"), { "x-forwarded-for": `203.0.113.${i}` });
        expect(answer.status).toBe(200);
      }
      const before = await counts();
      const refused = await from(address, unique("office-late"));
      flood.count(refused.status === 200);
      expectRefused(refused, 3_500, 3_600);
      expect(await counts()).toEqual(before);
      expect((await from(nextAddress(), unique("next-door"))).status).toBe(200);
    });

    it(`starts at most ${LIMITS.everyone.hits} checkouts a second for everyone together, under Stripe's own limit; a refused caller takes no place in it`, async () => {
      // The second's allowance already taken (by buyers from other addresses), in a longer window
      // so that the test does not race the clock.
      await stack.db.query(
        `insert into public.rate_limits (key, window_start, window_end, hits)
         values ('checkout:everyone', now(), now() + interval '30 seconds', $1)
         on conflict (key) do update set window_start = excluded.window_start, window_end = excluded.window_end, hits = excluded.hits`,
        [LIMITS.everyone.hits],
      );
      const before = await counts();
      const refused = await from(nextAddress(), unique("rush"));
      flood.count(refused.status === 200);
      expectRefused(refused, 1, 30);
      expect(await counts()).toEqual(before);

      // A caller over its own limit is refused before it is counted with everyone.
      const email = unique("flooder");
      await stack.db.query(
        "update public.rate_limits set window_end = now() - interval '1 second' where key = 'checkout:everyone'",
      );
      for (let i = 0; i < LIMITS.email.hits; i++) expect((await from(nextAddress(), email)).status).toBe(200);
      const shared = async () =>
        (await stack.db.query<{ hits: number }>("select hits from public.rate_limits where key = 'checkout:everyone'"))
          .rows[0]!.hits;
      const taken = await shared();
      for (let i = 0; i < 5; i++) expect((await from(nextAddress(), email)).status).toBe(429);
      expect(await shared()).toBe(taken);
    });

    it("100 checkouts at once from one address (the red-team's flood): at most what the limits allow reach Stripe, the rest get 429", async () => {
      await stack.db.query("delete from public.rate_limits where key like 'checkout:%'");
      const address = nextAddress();
      const started = Date.now();
      const answers = await Promise.all(Array.from({ length: 100 }, () => from(address, unique("flood"))));
      // The shared ceiling counts per second: the burst may span a few of them.
      const seconds = Math.ceil((Date.now() - started) / 1000) + 1;
      const allowed = Math.min(LIMITS.address.hits, LIMITS.everyone.hits * seconds);
      const started200 = answers.filter((a) => a.status === 200).length;
      for (const answer of answers.filter((a) => a.status !== 200)) expectRefused(answer, 1, 3_600);
      expect(started200).toBeGreaterThan(0);
      expect(started200).toBeLessThanOrEqual(allowed);
      for (let i = 0; i < answers.length - allowed; i++) flood.count(i < started200 - allowed);
      // The next test's buyer is not in this second's rush.
      await stack.db.query("delete from public.rate_limits where key = 'checkout:everyone'");
    });

    it("keeps no e-mail or address in its counters, only digests", async () => {
      const email = unique("private");
      const address = nextAddress();
      expect((await from(address, email)).status).toBe(200);
      const { rows } = await stack.db.query<{ key: string }>("select key from public.rate_limits");
      const keys = rows.map((row) => row.key).join("\n");
      expect(keys).toMatch(/^checkout:email:[0-9a-f]{64}$/m);
      expect(keys).not.toContain(email);
      expect(keys).not.toContain(address);
    });
  });
});
