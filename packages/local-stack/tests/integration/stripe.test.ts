/**
 * The local stack's Stripe stand-in (packages/local-stack/src/stripe/) driven by the real `stripe`
 * library over HTTP, as the functions drive it: keys, products and prices by lookup key, errors,
 * idempotency, restricted keys and their permissions, Checkout Sessions and their pagination,
 * paying on the hosted page by a plain form POST (card, declined card, 3-D Secure, US bank
 * account), refunds (and the test card whose refunds fail), and webhook delivery to a fixture
 * `stripe-webhook` function that verifies each event with the library's own async verifier:
 * Stripe's signature, several at once and in no set order, retries with backoff, and pending
 * deliveries resumed after a restart. Each test names the Stripe rule it pins (stripe-node source,
 * Stripe's API reference or docs). The stand-in keeps its state in files, not the database, so one
 * backend (PGlite) suffices.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CATALOGUE } from "../../../../functions/_shared/catalogue.ts";
import { setupCatalogue } from "../../../../functions/_shared/stripe-setup.ts";
import { startTestStack, type TestStack, linkProduct } from "../../src/harness.ts";
import { API_VERSION, DEPLOY_KEYS, signatureHeader } from "../../src/stripe/index.ts";
import { accountIdOf } from "../../src/stripe/receipts.ts";
import { payOnPage, TEST_BANK as BANK, TEST_CARD as CARD } from "../../../../tests/support/stripe-events.ts";

const project = mkdtempSync(join(tmpdir(), "stripe-standin-"));
const functionsDir = join(project, "functions");
const receivedFile = join(project, "received.jsonl");
const controlFile = join(project, "control.json");
const shared = pathToFileURL(join(import.meta.dirname, "../../../../functions/_shared/stripe.ts")).href;

interface Received {
  id: string;
  type: string;
  object: Record<string, unknown>;
  previous?: Record<string, unknown>;
  userAgent: string | null;
  contentType: string | null;
  apiUrl: string | undefined;
  siteUrl: string | undefined;
  answered: number;
  /** When the endpoint got the delivery and when it answered (Unix ms). */
  startedAt: number;
  endedAt: number;
}

/** What the fixture webhook answers: `status` for all, or 500 for the first n attempts of an event type. */
interface Control {
  status?: number;
  failFirst?: Record<string, number>;
  delayMs?: Record<string, number>;
}
const control = (value: Control) => writeFileSync(controlFile, JSON.stringify(value));
const received = (): Received[] => {
  try {
    return readFileSync(receivedFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Received);
  } catch {
    return [];
  }
};

// The webhook as the product's is: raw body verified with constructEventAsync and the Web Crypto
// provider (what runs on Supabase Edge), keyed with the STRIPE_WEBHOOK_SECRET the stack gives it.
mkdirSync(join(functionsDir, "stripe-webhook"), { recursive: true });
linkProduct(functionsDir);
writeFileSync(
  join(functionsDir, "stripe-webhook", "handler.ts"),
  `import { appendFileSync, readFileSync } from "node:fs";
import { Stripe } from ${JSON.stringify(shared)};
export default async function handler(request: Request, env: Record<string, string | undefined>) {
  const startedAt = Date.now();
  const raw = await request.text();
  let event;
  try {
    event = await Stripe.webhooks.constructEventAsync(raw, request.headers.get("stripe-signature") ?? "", env.STRIPE_WEBHOOK_SECRET ?? "", undefined, Stripe.createSubtleCryptoProvider());
  } catch (error) {
    return new Response(String(error), { status: 400 });
  }
  let control = {};
  try { control = JSON.parse(readFileSync(${JSON.stringify(controlFile)}, "utf8")); } catch {}
  const seen = (() => { try { return readFileSync(${JSON.stringify(receivedFile)}, "utf8").split("\\n").filter(Boolean).map((l) => JSON.parse(l)); } catch { return []; } })();
  const earlier = seen.filter((r) => r.id === event.id).length;
  const delay = control.delayMs?.[event.type] ?? 0;
  if (delay && earlier === 0) await new Promise((resolve) => setTimeout(resolve, delay));
  const answered = earlier < (control.failFirst?.[event.type] ?? 0) ? 500 : (control.status ?? 200);
  appendFileSync(${JSON.stringify(receivedFile)}, JSON.stringify({ id: event.id, type: event.type, object: event.data.object, previous: event.data.previous_attributes,
    userAgent: request.headers.get("user-agent"), contentType: request.headers.get("content-type"), apiUrl: env.STRIPE_API_URL, siteUrl: env.SITE_URL, answered, startedAt, endedAt: Date.now() }) + "\\n");
  return new Response(JSON.stringify({ received: true }), { status: answered, headers: { "content-type": "application/json" } });
}
`,
);

/** The real library, as functions/_shared/stripe.ts makes it, aimed at the stack. */
const client = (stack: TestStack, key = stack.stripe.secretKey) =>
  new Stripe(key, {
    host: "localhost",
    port: stack.port,
    protocol: "http",
    httpClient: Stripe.createFetchHttpClient(),
    maxNetworkRetries: 2,
  });

/**
 * The waits before first attempts, as fractions of the longest (250 ms): a test that fixes the
 * order of a burst sets them; otherwise each is random, as by default.
 */
const jitters: number[] = [];

const stackOptions = (retryDelaysMs: number[], dataDir?: string) => ({
  seed: false,
  dataDir,
  functionsDir,
  config: { functions: { "stripe-webhook": { verifyJwt: false } } },
  stripe: {
    retryDelaysMs,
    timeoutMs: 1_000,
    refundFailureDelayMs: 300,
    delivery: { random: () => jitters.shift() ?? Math.random() },
  },
});

describe("Stripe stand-in", () => {
  let stack: TestStack;
  let stripe: Stripe;
  let price: Stripe.Price;

  beforeAll(async () => {
    control({});
    stack = await startTestStack({ name: "PGlite" }, stackOptions([300, 600, 1_200]));
    stripe = client(stack);
    const product = await stripe.products.create({ id: "prod_test_course", name: "Test Course" });
    price = await stripe.prices.create({
      product: product.id,
      unit_amount: 30_000,
      currency: "usd",
      lookup_key: "test_course",
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    rmSync(project, { recursive: true, force: true });
  });

  const newSession = (params: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
    stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [{ price: price.id, quantity: 1 }],
      success_url: `${stack.url}/thank-you?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${stack.url}/purchase-course`,
      ...params,
    });

  describe("the API (stripe-node RequestSender/Error.ts: Stripe's status codes, error types and headers)", () => {
    it("refuses a wrong key with 401 and the key masked, and a missing key with Stripe's message (authentication)", async () => {
      const wrong = client(stack, "sk_test_not_the_key_1234");
      const error = await wrong.products.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
      expect((error as Stripe.errors.StripeError).message).toBe("Invalid API Key provided: sk_test_************1234");
      expect((error as Stripe.errors.StripeError).statusCode).toBe(401);
      const none = await fetch(`${stack.url}/v1/products`);
      expect(none.status).toBe(401);
      expect(none.headers.get("request-id")).toMatch(/^req_\w{14}$/);
      const body = (await none.json()) as { error: { message: string; type: string } };
      expect(body.error.type).toBe("invalid_request_error");
      expect(body.error.message).toMatch(
        /^You did not provide an API key\. You need to provide your API key in the Authorization header/,
      );
    });

    it("keeps one key per data folder: sk_test_ and whsec_ secrets", () => {
      expect(stack.stripe.secretKey).toMatch(/^sk_test_\w{99}$/);
      expect(stack.stripe.webhookSecret).toMatch(/^whsec_[0-9a-f]{64}$/);
    });

    it("sells the catalogue as npm run stripe:setup makes it: a second setup changes nothing (prices by lookup_key)", async () => {
      expect(await setupCatalogue(stripe, CATALOGUE)).toEqual([]);
      const { data } = await stripe.prices.list({
        lookup_keys: CATALOGUE.map((p) => p.lookupKey),
        active: true,
        expand: ["data.product"],
      });
      expect(data.map((p) => [p.lookup_key, p.unit_amount, (p.product as Stripe.Product).name]).sort()).toEqual(
        CATALOGUE.map((p) => [p.lookupKey, p.priceCents, p.name]).sort(),
      );
    });

    it("creates a product with the caller's id and a price found by lookup_keys[], expanding data.product (Prices list)", async () => {
      const { data } = await stripe.prices.list({ lookup_keys: ["test_course"], expand: ["data.product"] });
      expect(data).toHaveLength(1);
      expect(data[0]).toMatchObject({
        id: price.id,
        object: "price",
        active: true,
        currency: "usd",
        unit_amount: 30_000,
        type: "one_time",
        lookup_key: "test_course",
        livemode: false,
        product: { id: "prod_test_course", object: "product", name: "Test Course" },
      });
      expect(String(data[0]!.unit_amount_decimal)).toBe("30000");
      const duplicate = await stripe.products
        .create({ id: "prod_test_course", name: "Again" })
        .catch((e: unknown) => e);
      expect(duplicate).toMatchObject({ code: "resource_already_exists", param: "id", statusCode: 400 });
    });

    it("keeps a lookup_key on one price: a second one is refused unless transfer_lookup_key moves it (Prices create)", async () => {
      const first = await stripe.prices.create({
        product: "prod_test_course",
        unit_amount: 100,
        currency: "usd",
        lookup_key: "moving_key",
      });
      const refused = await stripe.prices
        .create({ product: "prod_test_course", unit_amount: 200, currency: "usd", lookup_key: "moving_key" })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      expect(refused).toMatchObject({
        param: "lookup_key",
        message: `A price (\`${first.id}\`) already uses that lookup key.`,
      });
      const second = await stripe.prices.create({
        product: "prod_test_course",
        unit_amount: 200,
        currency: "usd",
        lookup_key: "moving_key",
        transfer_lookup_key: true,
      });
      expect((await stripe.prices.retrieve(first.id)).lookup_key).toBeNull();
      expect((await stripe.prices.list({ lookup_keys: ["moving_key"] })).data.map((p) => p.id)).toEqual([second.id]);
      await stripe.prices.update(second.id, { active: false });
      expect((await stripe.prices.list({ lookup_keys: ["moving_key"], active: true })).data).toEqual([]);
    });

    it("answers an unknown id with 404 resource_missing, an unknown path with Unrecognized request URL, an unknown parameter with parameter_unknown", async () => {
      const missing = await stripe.prices.retrieve("price_nope").catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      expect(missing).toMatchObject({
        statusCode: 404,
        code: "resource_missing",
        param: "id",
        message: "No such price: 'price_nope'",
      });
      const session = await stripe.checkout.sessions.retrieve("cs_test_nope").catch((e: unknown) => e);
      expect(session).toMatchObject({ statusCode: 404, message: "No such checkout.session: 'cs_test_nope'" });
      const path = await fetch(`${stack.url}/v1/nothing`, {
        headers: { authorization: `Bearer ${stack.stripe.secretKey}` },
      });
      expect(path.status).toBe(404);
      expect(((await path.json()) as { error: { message: string } }).error.message).toBe(
        "Unrecognized request URL (GET: /v1/nothing). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.",
      );
      const unknown = await stripe.customers
        .create({ email: "a@example.com", colour: "red" } as never)
        .catch((e: unknown) => e);
      expect(unknown).toMatchObject({
        statusCode: 400,
        code: "parameter_unknown",
        param: "colour",
        message: "Received unknown parameter: colour",
      });
    });

    it("replays a POST for the same Idempotency-Key and parameters, and refuses the key with other parameters (idempotent requests)", async () => {
      const key = `key-${Date.now()}`;
      const first = await stripe.customers.create({ email: "idem@example.com" }, { idempotencyKey: key });
      const again = await stripe.customers.create({ email: "idem@example.com" }, { idempotencyKey: key });
      expect(again.id).toBe(first.id);
      const raw = await fetch(`${stack.url}/v1/customers`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${stack.stripe.secretKey}`,
          "content-type": "application/x-www-form-urlencoded",
          "idempotency-key": key,
        },
        body: "email=idem%40example.com",
      });
      expect(raw.headers.get("idempotent-replayed")).toBe("true");
      expect(((await raw.json()) as { id: string }).id).toBe(first.id);
      expect((await stripe.customers.list({ email: "idem@example.com" })).data).toHaveLength(1);
      const other = await stripe.customers
        .create({ email: "other@example.com" }, { idempotencyKey: key })
        .catch((e: unknown) => e);
      expect(other).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
      expect((other as Stripe.errors.StripeError).message).toBe(
        `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
      );
    });

    it("filters customers by e-mail exactly, case-sensitively (Customers list `email`)", async () => {
      const made = await stripe.customers.create({ email: "Case@Example.com", name: "Case" });
      expect((await stripe.customers.list({ email: "Case@Example.com" })).data.map((c) => c.id)).toEqual([made.id]);
      expect((await stripe.customers.list({ email: "case@example.com" })).data).toEqual([]);
    });
  });

  describe("restricted keys (docs: API keys, restricted keys: None, Read or Write per resource; Security, Permissions)", () => {
    /** The refusal of `key` for the permission `name`, as Stripe words it today. */
    const refusalOf = (key: string, label: string, name: string) =>
      `Permission denied. The provided key 'rk_test_${"*".repeat(93)}${key.slice(-6)}' does not have the required permissions for this endpoint on account '${accountId}'. Enabling ${label} ('${name}') permissions on this key would allow this request to continue. You can edit permissions at ${stack.stripe.dashboardUrl}`;
    let accountId = "";

    beforeAll(() => {
      accountId = accountIdOf(stack.stripe.secretKey);
    });

    it("makes the two keys DEPLOY.md prescribes, with the permissions its tables give them, and shows them on the dashboard", async () => {
      const deploy = readFileSync(join(import.meta.dirname, "../../../../DEPLOY.md"), "utf8");
      const functions = deploy.slice(deploy.indexOf("**A restricted key for the functions.**"));
      const table = functions.slice(0, functions.indexOf("and every other resource **None**"));
      const rows = [...table.matchAll(/^\| ([A-Za-z ]+?) +\| (Write|Read) +\|/gm)].map((m) => [
        m[1],
        m[2]!.toLowerCase(),
      ]);
      expect(rows.length).toBeGreaterThan(0);
      expect(Object.fromEntries(rows)).toEqual(DEPLOY_KEYS.functions.permissions);
      const catalogue = deploy.slice(deploy.indexOf("**A restricted key for the catalogue.**")).split("\n\n")[0]!;
      const grants = [...catalogue.matchAll(/\*\*(\w+): (Write|Read)\*\*/g)].map((m) => [m[1], m[2]!.toLowerCase()]);
      expect(Object.fromEntries(grants)).toEqual(DEPLOY_KEYS.catalogue.permissions);

      expect(stack.stripe.functionsKey).toMatch(/^rk_test_\w{99}$/);
      expect(stack.stripe.catalogueKey).toMatch(/^rk_test_\w{99}$/);
      expect(stack.stripe.restrictedKeys().slice(0, 2)).toEqual([
        {
          name: "Advisor Accelerator functions",
          key: stack.stripe.functionsKey,
          permissions: DEPLOY_KEYS.functions.permissions,
        },
        {
          name: "Advisor Accelerator catalogue",
          key: stack.stripe.catalogueKey,
          permissions: DEPLOY_KEYS.catalogue.permissions,
        },
      ]);
      const dashboard = await (await fetch(stack.stripe.dashboardUrl)).text();
      expect(dashboard).toContain(stack.stripe.functionsKey);
      expect(dashboard).toContain(
        "Checkout Sessions: Write, Customers: Write, Prices: Read, PaymentIntents: Read, Charges: Read",
      );
    });

    it("lets a key do what it holds: Read lists and retrieves, Write also creates and updates, Checkout Sessions brings PaymentIntents and Products Read", async () => {
      const reader = client(stack, stack.stripe.restrictedKey({ Prices: "read", "Checkout Sessions": "read" }));
      expect((await reader.prices.list({ lookup_keys: ["test_course"] })).data.map((p) => p.id)).toEqual([price.id]);
      expect((await reader.prices.retrieve(price.id)).id).toBe(price.id);
      // Checkout Sessions implies payment_intent_read and product_read (Security, Permissions).
      const session = await newSession({ customer_email: "reader@example.com" });
      await payOnPage(session, CARD);
      const read = await reader.checkout.sessions.retrieve(session.id, { expand: ["payment_intent"] });
      expect(read.payment_intent).toMatchObject({ object: "payment_intent", status: "succeeded" });
      expect((await reader.products.retrieve("prod_test_course")).name).toBe("Test Course");

      const writer = client(stack, stack.stripe.restrictedKey({ Customers: "write" }));
      const made = await writer.customers.create({ email: "writer@example.com" });
      expect((await writer.customers.update(made.id, { name: "Writer" })).name).toBe("Writer");
      // "Write permissions imply read permissions."
      expect((await writer.customers.list({ email: "writer@example.com" })).data.map((c) => c.id)).toEqual([made.id]);
    });

    it("refuses what a key does not hold before anything runs: 403, invalid_request_error, more_permissions_required, naming the permission to enable", async () => {
      const key = stack.stripe.restrictedKey({ Customers: "read", PaymentIntents: "read" });
      const limited = client(stack, key);
      const write = await limited.customers.create({ email: "nope@example.com" }).catch((e: unknown) => e);
      expect(write).toBeInstanceOf(Stripe.errors.StripePermissionError);
      expect(write).toMatchObject({
        statusCode: 403,
        rawType: "invalid_request_error",
        code: "more_permissions_required",
        message: refusalOf(key, "Customers Write", "customer_write"),
      });
      expect((await stripe.customers.list({ email: "nope@example.com" })).data).toEqual([]);
      const none = await limited.prices.list().catch((e: unknown) => e);
      expect(none).toMatchObject({ statusCode: 403, message: refusalOf(key, "Prices Read", "plan_read") });
      // An expanded object needs its own Read: a PaymentIntent's latest_charge needs Charges Read.
      const session = await newSession({ customer_email: "expand@example.com" });
      await payOnPage(session, CARD);
      const { payment_intent } = await stripe.checkout.sessions.retrieve(session.id);
      expect((await limited.paymentIntents.retrieve(payment_intent as string)).id).toBe(payment_intent);
      const expanded = await limited.paymentIntents
        .retrieve(payment_intent as string, { expand: ["latest_charge"] })
        .catch((e: unknown) => e);
      expect(expanded).toMatchObject({ statusCode: 403, message: refusalOf(key, "Charges Read", "charge_read") });
      // A key Stripe never issued is a wrong key, as an sk_ one is.
      const unknown = await client(stack, `rk_test_${"x".repeat(99)}`)
        .prices.list()
        .catch((e: unknown) => e);
      expect(unknown).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
      expect((unknown as Stripe.errors.StripeError).message).toBe(
        `Invalid API Key provided: rk_test_${"*".repeat(95)}xxxx`,
      );
    });

    it("runs npm run stripe:setup with DEPLOY.md's catalogue key, and refuses it customers (Products and Prices Write only)", async () => {
      const catalogue = client(stack, stack.stripe.catalogueKey);
      expect(await setupCatalogue(catalogue, CATALOGUE, { archive: true })).toEqual([]);
      const refused = await catalogue.customers.list().catch((e: unknown) => e);
      expect(refused).toMatchObject({
        statusCode: 403,
        message: refusalOf(stack.stripe.catalogueKey, "Customers Read", "customer_read"),
      });
    });
  });

  describe("Checkout Sessions (Checkout Session create, retrieve, list, expire, line items)", () => {
    it("refuses what Stripe refuses, with the param named", async () => {
      const refusal = (params: Partial<Stripe.Checkout.SessionCreateParams>) =>
        newSession(params).catch((e: unknown) => e as Stripe.errors.StripeError);
      expect(await refusal({ line_items: [{ price: "price_nope", quantity: 1 }] })).toMatchObject({
        statusCode: 400,
        code: "resource_missing",
        param: "line_items[0][price]",
        message: "No such price: 'price_nope'",
      });
      const archived = await stripe.prices.create({ product: "prod_test_course", unit_amount: 999, currency: "usd" });
      await stripe.prices.update(archived.id, { active: false });
      expect(await refusal({ line_items: [{ price: archived.id, quantity: 1 }] })).toMatchObject({
        param: "line_items[0][price]",
        message: "The price specified is inactive. This field only accepts active prices.",
      });
      expect(await refusal({ success_url: "not a url" })).toMatchObject({ param: "success_url", code: "url_invalid" });
      const buyer = await stripe.customers.create({ email: "both@example.com" });
      expect(await refusal({ customer: buyer.id, customer_email: "both@example.com" })).toMatchObject({
        message: "You may only specify one of these parameters: customer, customer_email.",
      });
      expect(await refusal({ expires_at: Math.floor(Date.now() / 1000) + 25 * 3600 })).toMatchObject({
        param: "expires_at",
        message: "The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.",
      });
      expect(await refusal({ line_items: [{ price: price.id }] })).toMatchObject({ param: "line_items[0][quantity]" });
    });

    it("refuses an active price of an archived product, naming the price, and sells it again once the product is active (Checkout Session create)", async () => {
      const product = await stripe.products.create({ name: "Retired Course" });
      const kept = await stripe.prices.create({ product: product.id, unit_amount: 10_000, currency: "usd" });
      await stripe.products.update(product.id, { active: false });
      // Archiving a product leaves its prices active (stripe-node #2131: "It's possible for the
      // Price to have active: true but the underlying Product to have active: false").
      expect((await stripe.prices.retrieve(kept.id)).active).toBe(true);
      const refused = await newSession({ line_items: [{ price: kept.id, quantity: 1 }] }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      // What Stripe answers (400, invalid_request_error, no code), as its API logs show it.
      expect(refused).toMatchObject({
        statusCode: 400,
        rawType: "invalid_request_error",
        code: undefined,
        param: "line_items[0][price]",
        message: `Price \`${kept.id}\` is not available to be purchased because its product is not active.`,
      });
      await stripe.products.update(product.id, { active: true });
      expect((await newSession({ line_items: [{ price: kept.id, quantity: 1 }] })).status).toBe("open");
    });

    it("makes an open session in Stripe's shape: amounts from price × quantity, no PaymentIntent until the buyer pays, the hosted page as url", async () => {
      const session = await newSession({
        line_items: [{ price: price.id, quantity: 2 }],
        customer_email: "shape@example.com",
        client_reference_id: "ref-1",
        metadata: { product_key: "GROWTH_MINDSET" },
        expand: ["line_items"],
      });
      expect(session).toMatchObject({
        object: "checkout.session",
        mode: "payment",
        status: "open",
        payment_status: "unpaid",
        amount_subtotal: 60_000,
        amount_total: 60_000,
        currency: "usd",
        customer: null,
        customer_email: "shape@example.com",
        customer_details: null,
        payment_intent: null,
        client_reference_id: "ref-1",
        metadata: { product_key: "GROWTH_MINDSET" },
        success_url: `${stack.url}/thank-you?session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${stack.url}/purchase-course`,
        url: `${stack.url}/_local/stripe/checkout/${session.id}`,
        ui_mode: "hosted_page",
        livemode: false,
      });
      expect(session.id).toMatch(/^cs_test_a1\w{56}$/);
      expect(session.expires_at - session.created).toBe(24 * 3600);
      expect(session.line_items?.data).toMatchObject([
        { object: "item", quantity: 2, amount_total: 60_000, description: "Test Course", price: { id: price.id } },
      ]);
      const items = await stripe.checkout.sessions.listLineItems(session.id);
      expect(items.data.map((i) => i.id)).toEqual(session.line_items?.data.map((i) => i.id));
      const retrieved = await stripe.checkout.sessions.retrieve(session.id);
      expect(retrieved.line_items).toBeUndefined();
    });

    it("pages newest first with has_more, and autoPagingToArray walks every page (list pagination)", async () => {
      const customer = await stripe.customers.create({ email: "pages@example.com" });
      const made: string[] = [];
      for (let i = 0; i < 5; i++) made.push((await newSession({ customer: customer.id })).id);
      const first = await stripe.checkout.sessions.list({ customer: customer.id, limit: 2 });
      expect(first.data.map((s) => s.id)).toEqual([made[4], made[3]]);
      expect(first.has_more).toBe(true);
      const next = await stripe.checkout.sessions.list({ customer: customer.id, limit: 2, starting_after: made[3] });
      expect(next.data.map((s) => s.id)).toEqual([made[2], made[1]]);
      const back = await stripe.checkout.sessions.list({ customer: customer.id, limit: 2, ending_before: made[1] });
      expect(back.data.map((s) => s.id)).toEqual([made[3], made[2]]);
      const all = await stripe.checkout.sessions
        .list({ customer: customer.id, limit: 2 })
        .autoPagingToArray({ limit: 100 });
      expect(all.map((s) => s.id)).toEqual([...made].reverse());
      const open = await stripe.checkout.sessions.list({ status: "open", created: { gte: 0 }, limit: 100 });
      expect(open.data.every((s) => s.status === "open")).toBe(true);
    });

    it("expires an open session (checkout.session.expired), and refuses to expire it twice", async () => {
      const session = await newSession();
      const expired = await stripe.checkout.sessions.expire(session.id);
      expect(expired).toMatchObject({ status: "expired", url: null });
      const twice = await stripe.checkout.sessions.expire(session.id).catch((e: unknown) => e);
      expect(twice).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      await stack.stripe.idle();
      expect(
        received()
          .filter((r) => r.type === "checkout.session.expired")
          .map((r) => r.object.id),
      ).toContain(session.id);
      const page = await fetch(session.url!);
      expect(await page.text()).toContain("This Checkout Session has expired");
    });
  });

  describe("the hosted checkout page (Checkout's card form, Stripe's test cards and messages)", () => {
    it("shows the merchant, the item and amount in dollars, a prefilled e-mail, the card form and a Back link", async () => {
      const session = await newSession({ customer_email: "page@example.com" });
      const page = await fetch(session.url!);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain("Advisor Accelerator");
      expect(html).toContain("Test Course");
      expect(html).toContain("$300.00");
      expect(html).toMatch(/<input id="email" name="email" type="email" value="page@example.com" readonly>/);
      for (const label of ["Card number", "Expiration (MM / YY)", "CVC", "Cardholder name", "US bank account"]) {
        expect(html).toContain(label);
      }
      expect(html).toContain(`<a class="back" href="${stack.url}/purchase-course">← Back</a>`);
      expect(html).toContain('<button type="submit">Pay</button>');
    });

    it("pays with 4242…: 303 to success_url with {CHECKOUT_SESSION_ID} filled in; session complete and paid; events delivered, signed as Stripe signs", async () => {
      const session = await newSession({
        customer_email: "card@example.com",
        payment_intent_data: { metadata: { product_key: "GROWTH_MINDSET" } },
      });
      const paid = await payOnPage(session, CARD);
      expect(paid.status).toBe(303);
      expect(paid.headers.get("location")).toBe(`${stack.url}/thank-you?session_id=${session.id}`);
      const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent.latest_charge"] });
      expect(done).toMatchObject({
        status: "complete",
        payment_status: "paid",
        url: null,
        customer: null,
        customer_details: { email: "card@example.com", name: "Ada Buyer" },
      });
      const intent = done.payment_intent as Stripe.PaymentIntent;
      expect(intent).toMatchObject({
        status: "succeeded",
        amount: 30_000,
        amount_received: 30_000,
        metadata: { product_key: "GROWTH_MINDSET" },
      });
      expect(intent.latest_charge).toMatchObject({
        object: "charge",
        status: "succeeded",
        paid: true,
        amount: 30_000,
        refunded: false,
      });
      await stack.stripe.idle();
      const events = received().filter(
        (r) => r.object.id === session.id || r.object.id === intent.id || r.object.payment_intent === intent.id,
      );
      // Every event once; their order is Stripe's to choose (see "webhook delivery" below).
      expect(events.map((r) => r.type).sort()).toEqual([
        "charge.succeeded",
        "checkout.session.completed",
        "payment_intent.created",
        "payment_intent.succeeded",
      ]);
      const completed = events.find((r) => r.type === "checkout.session.completed")!;
      expect(completed).toMatchObject({
        userAgent: "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
        contentType: "application/json; charset=utf-8",
        apiUrl: stack.url,
        siteUrl: stack.config.auth.siteUrl,
        object: { id: session.id, status: "complete", payment_status: "paid", payment_intent: intent.id },
      });
      const event = await stripe.events.retrieve(completed.id);
      expect(event).toMatchObject({
        api_version: API_VERSION,
        type: "checkout.session.completed",
        pending_webhooks: 0,
        livemode: false,
      });
      const again = await payOnPage(session, CARD);
      expect(again.status).toBe(409);
      expect(await again.text()).toContain("This Checkout Session is complete");
    });

    it("shows a declined card's message, keeps the session open and sends no checkout.session event, only the failed charge's (4000…0002)", async () => {
      const session = await newSession({ customer_email: "declined@example.com" });
      const page = await payOnPage(session, { ...CARD, card_number: "4000 0000 0000 0002" });
      expect(page.status).toBe(402);
      expect(await page.text()).toContain('<p class="alert" role="alert">Your card was declined.</p>');
      const insufficient = await payOnPage(session, { ...CARD, card_number: "4000000000009995" });
      expect(await insufficient.text()).toContain("Your card has insufficient funds.");
      const still = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent"] });
      expect(still).toMatchObject({ status: "open", payment_status: "unpaid" });
      expect(still.payment_intent).toMatchObject({
        status: "requires_payment_method",
        last_payment_error: { code: "card_declined", decline_code: "insufficient_funds", type: "card_error" },
      });
      await stack.stripe.idle();
      const about = received().filter((r) => r.object.id === session.id);
      expect(about).toEqual([]);
      const failures = received().filter(
        (r) => r.object.payment_intent === (still.payment_intent as Stripe.PaymentIntent).id,
      );
      expect(failures.map((r) => r.type)).toEqual(["charge.failed", "charge.failed"]);
    });

    it("refuses incomplete or invalid card details with Stripe's messages, charging nothing", async () => {
      const session = await newSession({ customer_email: "typo@example.com" });
      const check = async (fields: Record<string, string>, message: string) => {
        const page = await payOnPage(session, { ...CARD, ...fields });
        expect(page.status).toBe(400);
        expect(await page.text()).toContain(message);
      };
      await check({ card_number: "4242 4242 4242 4241" }, "Your card number is invalid.");
      await check({ card_number: "4242 4242" }, "Your card number is incomplete.");
      await check({ expiry: "01 / 20" }, "Your card&#39;s expiration year is in the past.");
      await check({ expiry: "" }, "Your card&#39;s expiration date is incomplete.");
      await check({ cvc: "12" }, "Your card&#39;s security code is incomplete.");
      const live = await payOnPage(session, { ...CARD, card_number: "4111 1111 1111 1111" });
      expect(live.status).toBe(402);
      expect(await live.text()).toContain("Your request was in test mode, but used a non test (live) card.");
      expect((await stripe.checkout.sessions.retrieve(session.id)).payment_intent).toBeNull();
    });

    /** The events about one session's payment, by type, in no particular order. */
    const eventsOf = (sessionId: string, intent: string) =>
      received()
        .filter((r) => r.object.id === sessionId || r.object.id === intent || r.object.payment_intent === intent)
        .map((r) => r.type)
        .sort();

    it("asks 4000 0025 0000 3155 for 3-D Secure: the PaymentIntent requires_action until the buyer completes it, then it pays (Testing: 3D Secure authentication)", async () => {
      const session = await newSession({ customer_email: "3ds@example.com" });
      const asked = await payOnPage(session, { ...CARD, card_number: "4000 0025 0000 3155" });
      expect(asked.status).toBe(303);
      const step = `${stack.url}/_local/stripe/checkout/${session.id}/authenticate`;
      expect(asked.headers.get("location")).toBe(new URL(step).pathname);
      const waiting = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent"] });
      expect(waiting).toMatchObject({ status: "open", payment_status: "unpaid" });
      expect(waiting.payment_intent).toMatchObject({
        status: "requires_action",
        latest_charge: null,
        next_action: { type: "use_stripe_sdk" },
      });
      const page = await fetch(step);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('<h1 id="authenticate">Authenticate your payment');
      expect(html).toContain("$300.00");
      expect(html).toContain("Visa ending in 3155");
      expect(html).toContain('<button type="submit" name="outcome" value="complete">Complete authentication</button>');
      expect(html).toMatch(/<button type="submit" name="outcome" value="fail"[^>]*>Fail authentication<\/button>/);

      const done = await fetch(step, {
        method: "POST",
        redirect: "manual",
        body: new URLSearchParams({ outcome: "complete" }),
      });
      expect(done.status).toBe(303);
      expect(done.headers.get("location")).toBe(`${stack.url}/thank-you?session_id=${session.id}`);
      const paid = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent.latest_charge"] });
      expect(paid).toMatchObject({ status: "complete", payment_status: "paid" });
      const intent = paid.payment_intent as Stripe.PaymentIntent;
      expect(intent).toMatchObject({ status: "succeeded", next_action: null });
      expect((intent.latest_charge as Stripe.Charge).payment_method_details?.card?.three_d_secure).toMatchObject({
        result: "authenticated",
        authentication_flow: "challenge",
      });
      await stack.stripe.idle();
      expect(eventsOf(session.id, intent.id)).toEqual([
        "charge.succeeded",
        "checkout.session.completed",
        "payment_intent.created",
        "payment_intent.requires_action",
        "payment_intent.succeeded",
      ]);
      // Answered once: the step is gone, and its address leads back to the (now complete) page.
      const again = await fetch(step, { redirect: "manual" });
      expect(again.status).toBe(303);
    });

    it("keeps the buyer on the checkout page with Checkout's message when they fail 3-D Secure (4000 0027 6000 3184): no charge, payment_intent_authentication_failure", async () => {
      const session = await newSession({ customer_email: "3ds-fail@example.com" });
      const card = { ...CARD, card_number: "4000 0027 6000 3184" };
      expect((await payOnPage(session, card)).status).toBe(303);
      const step = `${stack.url}/_local/stripe/checkout/${session.id}/authenticate`;
      const failed = await fetch(step, {
        method: "POST",
        redirect: "manual",
        body: new URLSearchParams({ outcome: "fail" }),
      });
      expect(failed.status).toBe(402);
      const html = await failed.text();
      expect(html).toContain(
        '<p class="alert" role="alert">We are unable to authenticate your payment method. Please choose a different payment method and try again.</p>',
      );
      expect(html).toContain('value="3ds-fail@example.com"');
      const still = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent"] });
      expect(still).toMatchObject({ status: "open", payment_status: "unpaid" });
      const intent = still.payment_intent as Stripe.PaymentIntent;
      expect(intent).toMatchObject({
        status: "requires_payment_method",
        latest_charge: null,
        payment_method: null,
        last_payment_error: { code: "payment_intent_authentication_failure", type: "invalid_request_error" },
      });
      await stack.stripe.idle();
      expect(eventsOf(session.id, intent.id)).toEqual([
        "payment_intent.created",
        "payment_intent.payment_failed",
        "payment_intent.requires_action",
      ]);
      // This card asks on every payment: a second try asks again, and completing it pays.
      expect((await payOnPage(session, card)).status).toBe(303);
      const done = await fetch(step, {
        method: "POST",
        redirect: "manual",
        body: new URLSearchParams({ outcome: "complete" }),
      });
      expect(done.status).toBe(303);
      expect((await stripe.checkout.sessions.retrieve(session.id)).payment_status).toBe("paid");
    });

    it("takes another card after a failed 3-D Secure: the page it returns to posts the new card to the checkout, which pays (Testing: 3D Secure authentication, 4000 0027 6000 3184 then 4242)", async () => {
      const session = await newSession({ customer_email: "3ds-other-card@example.com" });
      expect((await payOnPage(session, { ...CARD, card_number: "4000 0027 6000 3184" })).status).toBe(303);
      const step = `${stack.url}/_local/stripe/checkout/${session.id}/authenticate`;
      const failed = await fetch(step, {
        method: "POST",
        redirect: "manual",
        body: new URLSearchParams({ outcome: "fail" }),
      });
      expect(failed.status).toBe(402);
      const html = await failed.text();
      expect(html).toContain("We are unable to authenticate your payment method.");
      // The buyer is still at the step's address: a browser posts the form to its action, or to
      // that address when it has none (HTML: form submission, the form's action).
      const form = /<form\b[^>]*aria-label="Payment"[^>]*>/.exec(html)?.[0] ?? "";
      const action = /\baction="([^"]*)"/.exec(form)?.[1];
      const target = new URL(action || step, step).href;
      expect(target).toBe(session.url);
      const paid = await fetch(target, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(CARD),
      });
      expect(paid.status).toBe(303);
      expect(paid.headers.get("location")).toBe(`${stack.url}/thank-you?session_id=${session.id}`);
      const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent.latest_charge"] });
      expect(done).toMatchObject({ status: "complete", payment_status: "paid" });
      const charge = (done.payment_intent as Stripe.PaymentIntent).latest_charge as Stripe.Charge;
      expect(charge.payment_method_details?.card).toMatchObject({ last4: "4242", three_d_secure: null });
    });

    it("declines 4000 0082 6000 3178 for insufficient funds after a completed authentication", async () => {
      const session = await newSession({ customer_email: "3ds-funds@example.com" });
      expect((await payOnPage(session, { ...CARD, card_number: "4000008260003178" })).status).toBe(303);
      const declined = await fetch(`${stack.url}/_local/stripe/checkout/${session.id}/authenticate`, {
        method: "POST",
        redirect: "manual",
        body: new URLSearchParams({ outcome: "complete" }),
      });
      expect(declined.status).toBe(402);
      expect(await declined.text()).toContain("Your card has insufficient funds.");
      const still = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent.latest_charge"] });
      expect(still.status).toBe("open");
      const intent = still.payment_intent as Stripe.PaymentIntent;
      expect(intent.last_payment_error).toMatchObject({ code: "card_declined", decline_code: "insufficient_funds" });
      expect(intent.latest_charge).toMatchObject({
        status: "failed",
        payment_method_details: { card: { three_d_secure: { result: "authenticated" } } },
      });
    });

    it("asks for the e-mail when the session has none, and creates a Customer only with customer_creation=always", async () => {
      const guest = await newSession();
      const missing = await payOnPage(guest, CARD);
      expect(missing.status).toBe(400);
      expect(await missing.text()).toMatch(/id="email-error">Required</);
      expect((await payOnPage(guest, { ...CARD, email: "guest@example.com" })).status).toBe(303);
      expect((await stripe.checkout.sessions.retrieve(guest.id)).customer).toBeNull();
      const always = await newSession({ customer_creation: "always" });
      expect((await payOnPage(always, { ...CARD, email: "always@example.com" })).status).toBe(303);
      const made = (await stripe.checkout.sessions.retrieve(always.id, { expand: ["customer"] }))
        .customer as Stripe.Customer;
      expect(made).toMatchObject({ object: "customer", email: "always@example.com", name: "Ada Buyer" });
    });
  });

  describe("delayed payments and refunds (US bank account, Refunds create)", () => {
    it("completes a bank debit unpaid and processing; settling sends checkout.session.async_payment_succeeded", async () => {
      const session = await newSession({ customer_email: "bank@example.com" });
      expect((await payOnPage(session, BANK)).status).toBe(303);
      const pending = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent"] });
      expect(pending).toMatchObject({
        status: "complete",
        payment_status: "unpaid",
        payment_intent: { status: "processing" },
      });
      stack.stripe.settle(session.id);
      const settled = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent.latest_charge"] });
      expect(settled).toMatchObject({
        payment_status: "paid",
        payment_intent: { status: "succeeded", latest_charge: { status: "succeeded", paid: true } },
      });
      await stack.stripe.idle();
      const sessionEvents = received().filter((r) => r.object.id === session.id);
      // Settled at once, so the two may arrive in either order (no ordering guarantee).
      expect(sessionEvents.map((r) => [r.type, r.object.payment_status]).sort()).toEqual([
        ["checkout.session.async_payment_succeeded", "paid"],
        ["checkout.session.completed", "unpaid"],
      ]);
      expect(() => stack.stripe.settle(session.id)).toThrow(/no bank payment waiting/);
    });

    it("failing a bank debit sends checkout.session.async_payment_failed and leaves the session unpaid", async () => {
      const session = await newSession({ customer_email: "bounced@example.com" });
      await payOnPage(session, BANK);
      stack.stripe.fail(session.id);
      await stack.stripe.idle();
      const failed = received().find(
        (r) => r.object.id === session.id && r.type === "checkout.session.async_payment_failed",
      )!;
      expect(failed).toMatchObject({
        type: "checkout.session.async_payment_failed",
        object: { status: "complete", payment_status: "unpaid" },
      });
      const intent = await stripe.paymentIntents.retrieve(failed.object.payment_intent as string);
      expect(intent.status).toBe("requires_payment_method");
    });

    it("refunds in full: charge.refunded with refunded and amount_refunded, refund.created; a second refund is refused", async () => {
      const session = await newSession({ customer_email: "refund@example.com" });
      await payOnPage(session, CARD);
      const { payment_intent } = await stripe.checkout.sessions.retrieve(session.id);
      const refund = await stripe.refunds.create(
        { payment_intent: payment_intent as string },
        { idempotencyKey: `refund-${session.id}` },
      );
      expect(refund).toMatchObject({ object: "refund", amount: 30_000, status: "succeeded", payment_intent });
      expect(await stripe.refunds.retrieve(refund.id)).toMatchObject({ id: refund.id });
      const again = await stripe.refunds.create({ payment_intent: payment_intent as string }).catch((e: unknown) => e);
      expect(again).toMatchObject({ code: "charge_already_refunded", statusCode: 400 });
      await stack.stripe.idle();
      const refunded = received().find(
        (r) => r.type === "charge.refunded" && r.object.payment_intent === payment_intent,
      )!;
      expect(refunded.object).toMatchObject({ refunded: true, amount_refunded: 30_000, amount: 30_000 });
      // This API version leaves a charge's refunds out unless expanded.
      expect(refunded.object).not.toHaveProperty("refunds");
      const event = await stripe.events.retrieve(refunded.id);
      expect(event.request).toEqual({ id: expect.stringMatching(/^req_/), idempotency_key: `refund-${session.id}` });
      expect(received().some((r) => r.type === "refund.created" && r.object.id === refund.id)).toBe(true);
      const byType = await stripe.events.list({ type: "charge.*", limit: 100 });
      expect(byType.data.length).toBeGreaterThan(0);
      expect(byType.data.every((e) => e.type.startsWith("charge."))).toBe(true);
    });

    it("fails a refund of 4000 0000 0000 5126 after it began as succeeded: charge.refund.updated, refund.updated, refund.failed (Testing: Refunds, asynchronous failure)", async () => {
      const session = await newSession({ customer_email: "refund-fails@example.com" });
      expect((await payOnPage(session, { ...CARD, card_number: "4000 0000 0000 5126" })).status).toBe(303);
      const refund = stack.stripe.refund(session.id);
      // "Its status begins as succeeded. Some time later, its status transitions to failed."
      expect(refund).toMatchObject({ object: "refund", status: "succeeded", amount: 30_000 });
      expect((await stripe.refunds.retrieve(refund.id)).status).toBe("succeeded");
      await stack.stripe.idle();
      const failed = await stripe.refunds.retrieve(refund.id);
      expect(failed).toMatchObject({
        status: "failed",
        failure_reason: "expired_or_canceled_card",
        failure_balance_transaction: expect.stringMatching(/^txn_/),
      });
      // The amount is no longer refunded: it stays with the business, and can be refunded again.
      const charge = await stripe.charges.retrieve(failed.charge as string);
      expect(charge).toMatchObject({ refunded: false, amount_refunded: 0 });
      const about = received().filter((r) => r.object.id === refund.id);
      expect(about.map((r) => [r.type, r.object.status]).sort()).toEqual([
        ["charge.refund.updated", "failed"],
        ["refund.created", "succeeded"],
        ["refund.failed", "failed"],
        ["refund.updated", "failed"],
      ]);
      expect(about.find((r) => r.type === "charge.refund.updated")!.previous).toEqual({
        failure_balance_transaction: null,
        failure_reason: null,
        status: "succeeded",
      });
      const dashboard = await (await fetch(stack.stripe.dashboardUrl)).text();
      expect(dashboard).toContain("refund of $300.00 failed");
      // A card whose refunds work is unaffected: its refund stays succeeded.
      const fine = await newSession({ customer_email: "refund-works@example.com" });
      await payOnPage(fine, CARD);
      const kept = stack.stripe.refund(fine.id);
      await stack.stripe.idle();
      expect((await stripe.refunds.retrieve(kept.id)).status).toBe("succeeded");
    });
  });

  describe("webhook delivery (Stripe's webhook docs: signature scheme, retries, no ordering guarantee)", () => {
    it("signs exactly as stripe-node's generateTestHeaderString does", () => {
      const payload = JSON.stringify({ id: "evt_1", object: "event" }, null, 2);
      const timestamp = 1_790_000_000;
      const secret = stack.stripe.webhookSecret;
      expect(signatureHeader(payload, secret, timestamp)).toBe(
        Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }),
      );
    });

    it("sends up to four deliveries at once and in no set order: a later event can arrive first (webhooks: event ordering, concurrent deliveries)", async () => {
      control({ delayMs: { "checkout.session.expired": 400 } });
      const sessions: Stripe.Checkout.Session[] = [];
      for (let i = 0; i < 8; i++) sessions.push(await newSession({ customer_email: `burst${i}@example.com` }));
      // Each later event waits less before its first attempt than the one made before it.
      jitters.push(0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2);
      for (const session of sessions) stack.stripe.expire(session.id);
      await stack.stripe.idle();
      control({});
      const ids = sessions.map((s) => s.id);
      const burst = received().filter(
        (r) => r.type === "checkout.session.expired" && ids.includes(r.object.id as string),
      );
      expect(burst).toHaveLength(8);
      const atOnce = Math.max(
        ...burst.map((r) => burst.filter((o) => o.startedAt <= r.startedAt && r.startedAt < o.endedAt).length),
      );
      expect(atOnce).toBe(4);
      const arrival = [...burst].sort((a, b) => a.startedAt - b.startedAt).map((r) => r.object.id);
      expect(arrival[0]).toBe(ids.at(-1));
      expect(arrival).not.toEqual(ids);
    });

    it("retries a 500 and a timeout with backoff until 2xx, without holding later events back", async () => {
      control({ failFirst: { "checkout.session.completed": 3 }, delayMs: { "charge.succeeded": 1_500 } });
      const first = await newSession({ customer_email: "retry@example.com" });
      await payOnPage(first, CARD);
      const second = await newSession({ customer_email: "later@example.com" });
      await payOnPage(second, CARD);
      await stack.stripe.idle();
      control({});
      const log = stack.stripe.deliveries();
      const completed = log.filter((d) => d.type === "checkout.session.completed").slice(-2);
      for (const delivery of completed) {
        expect(delivery.status).toBe("succeeded");
        expect(delivery.attempts.map((a) => a.status)).toEqual([500, 500, 500, 200]);
        const [a, b, c, d] = delivery.attempts;
        // Each retry waits its delay from the schedule: 300 ms, 600 ms, 1.2 s.
        expect(b!.at - a!.at).toBeGreaterThanOrEqual(300);
        expect(c!.at - b!.at).toBeGreaterThanOrEqual(600);
        expect(d!.at - c!.at).toBeGreaterThanOrEqual(1_200);
      }
      const slow = log.filter((d) => d.type === "charge.succeeded").slice(-2);
      for (const delivery of slow) {
        expect(delivery.attempts[0]).toMatchObject({ status: null, error: "Timed out after 1000 ms" });
        expect(delivery.status).toBe("succeeded");
      }
      // The second session's completion went out before the first one's retries succeeded.
      const firstDone = completed[0]!.attempts.at(-1)!.at;
      expect(completed[1]!.attempts[0]!.at).toBeLessThan(firstDone);
    }, 20_000);

    it("gives up after the last retry and marks the delivery failed", async () => {
      control({ status: 500 });
      const session = await newSession({ customer_email: "gives-up@example.com" });
      stack.stripe.expire(session.id);
      await stack.stripe.idle();
      control({});
      const { data } = await stripe.events.list({ type: "checkout.session.expired", limit: 100 });
      const event = data.find((e) => (e.data.object as Stripe.Checkout.Session).id === session.id)!;
      const delivery = stack.stripe.deliveries().find((d) => d.eventId === event.id)!;
      expect(delivery.status).toBe("failed");
      expect(delivery.attempts).toHaveLength(4);
      expect((await stripe.events.list({ delivery_success: false, limit: 100 })).data.map((e) => e.id)).toContain(
        delivery.eventId,
      );
    }, 20_000);
  });

  it("resumes a pending delivery after a restart on the same data folder, with the same keys", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stripe-restart-"));
    try {
      control({ status: 500 });
      const first = await startTestStack({ name: "PGlite" }, stackOptions([1_500], dataDir));
      const keys = { secretKey: first.stripe.secretKey, webhookSecret: first.stripe.webhookSecret };
      const session = await client(first).checkout.sessions.create({
        mode: "payment",
        line_items: [
          { price: (await client(first).prices.list({ lookup_keys: ["growth_mindset"] })).data[0]!.id, quantity: 1 },
        ],
        success_url: `${first.url}/thank-you`,
      });
      await client(first).checkout.sessions.expire(session.id);
      // Wait for the first, failing, attempt of the expiry's event; then stop before its retry.
      for (let i = 0; i < 100 && !received().some((r) => r.object.id === session.id); i++)
        await new Promise((r) => setTimeout(r, 50));
      await first.stop();
      const left = JSON.parse(readFileSync(join(dataDir, "stripe", "state.json"), "utf8")) as {
        deliveries: Record<string, { type: string; status: string; attempts: unknown[] }>;
      };
      const pending = Object.values(left.deliveries).filter((d) => d.status === "pending");
      expect(pending.some((d) => d.type === "checkout.session.expired" && d.attempts.length === 1)).toBe(true);

      control({});
      const second = await startTestStack({ name: "PGlite" }, stackOptions([1_500], dataDir));
      try {
        expect({ secretKey: second.stripe.secretKey, webhookSecret: second.stripe.webhookSecret }).toEqual(keys);
        await second.stripe.idle();
        const delivered = second.stripe.deliveries().filter((d) => d.type === "checkout.session.expired");
        expect(delivered.every((d) => d.status === "succeeded")).toBe(true);
        const answered = received()
          .filter((r) => r.object.id === session.id)
          .map((r) => r.answered);
        expect(answered).toEqual([500, 200]);
        expect((await client(second).checkout.sessions.retrieve(session.id)).status).toBe("expired");
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it("serves the dashboard to this machine: sessions, their events, the signing secret, and buttons that refund and expire", async () => {
    const paid = await newSession({ customer_email: "dashboard@example.com" });
    await payOnPage(paid, CARD);
    const open = await newSession({ customer_email: "dashboard@example.com" });
    const page = await fetch(stack.stripe.dashboardUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(stack.stripe.webhookSecret);
    expect(html).toContain(paid.id);
    expect(html).toContain("checkout.session.completed");
    const press = (id: string, action: string) =>
      fetch(`${stack.stripe.dashboardUrl}/sessions/${id}/${action}`, { method: "POST", redirect: "manual" });
    expect((await press(paid.id, "refund")).status).toBe(303);
    const { payment_intent } = await stripe.checkout.sessions.retrieve(paid.id, {
      expand: ["payment_intent.latest_charge"],
    });
    expect((payment_intent as Stripe.PaymentIntent).latest_charge).toMatchObject({
      refunded: true,
      amount_refunded: 30_000,
    });
    const twice = await press(paid.id, "refund");
    expect(twice.status).toBe(409);
    expect(await twice.text()).toContain("has already been refunded");
    expect((await press(open.id, "expire")).status).toBe(303);
    expect((await stripe.checkout.sessions.retrieve(open.id)).status).toBe("expired");
    await stack.stripe.idle();
    const log = (await (await fetch(`${stack.stripe.dashboardUrl}/deliveries.json`)).json()) as unknown[];
    expect(log).toEqual(stack.stripe.deliveries());
    const foreign = await fetch(`${stack.stripe.dashboardUrl}/sessions/${open.id}/expire`, {
      method: "POST",
      headers: { origin: "https://evil.example" },
    });
    expect(foreign.status).toBe(403);
  });
});
