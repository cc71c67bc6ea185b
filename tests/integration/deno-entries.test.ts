/**
 * Each function's Supabase Edge entry under the real Deno runtime (the `deno` npm package): the
 * module and import map supabase/config.toml names, as `supabase functions deploy` resolves them
 * (packages/local-stack/src/config.ts: functions/<name>/index.ts and the deno.json beside it),
 * bundled (npm: specifiers, fetched from the npm registry into Deno's cache), served by
 * `Deno.serve` and talking to the local stack: the Stripe stand-in and the Supabase API.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUSINESS_EMAIL } from "../../functions/_shared/catalogue.ts";
import { checkoutRequest } from "../../packages/shared/checkout-request.ts";
import { leadRequest } from "../../packages/shared/lead.ts";
import { orderReference } from "../../functions/_shared/order-reference.ts";
import { stripeClient } from "../../functions/_shared/stripe.ts";
import { loadConfig, startTestStack, type TestStack } from "@advisor-accelerator/local-stack";
import { checkoutSession, signEvent, stripeEvent } from "../support/stripe-events.ts";

const root = join(import.meta.dirname, "../..");
const DENO = join(root, "node_modules/.bin/deno");
const SITE = "http://localhost:4321";

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/**
 * Deno's environment: this process's (proxy and certificate settings included) without the
 * functions' own variables, which each test sets; the system's CA store, as npm uses it.
 */
function denoEnv(): Record<string, string> {
  const env: Record<string, string> = {
    NO_COLOR: "1",
    DENO_TLS_CA_STORE: process.env.DENO_TLS_CA_STORE ?? "system,mozilla",
  };
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(STRIPE_|SUPABASE_|ALLOWED_ORIGINS$)/.test(name)) env[name] ??= value;
  }
  return env;
}

/** What `supabase functions deploy <name>` uploads: the entry and import map config.toml names. */
function deployed(name: string): { dir: string; entrypoint: string; importMap: string } {
  const { entrypoint, importMap } = loadConfig(SITE).functions[name] ?? {};
  if (!entrypoint || !importMap) throw new Error(`supabase/config.toml deploys no function ${name} with a deno.json`);
  return { dir: dirname(entrypoint), entrypoint, importMap };
}

/** Fetches the entry's npm imports into Deno's cache, as `supabase functions deploy` does; once more after a network hiccup. */
function cacheEntry(name: string): Promise<void> {
  const { dir, entrypoint, importMap } = deployed(name);
  const attempt = () =>
    new Promise<string | null>((resolve) => {
      const child = spawn(DENO, ["cache", "--quiet", "--config", importMap, entrypoint], {
        cwd: dir,
        env: denoEnv(),
      });
      let output = "";
      child.stderr.on("data", (chunk) => (output += chunk));
      child.on("exit", (code) => resolve(code === 0 ? null : output));
    });
  return attempt().then(async (failed) => {
    if (failed === null) return;
    const again = await attempt();
    if (again !== null) throw new Error(`deno cache failed: ${again}`);
  });
}

/**
 * Stops an entry and everything it started: node_modules/.bin/deno is npm's launcher, a Node
 * script that runs the Deno binary as its child, so a signal to the launcher alone would leave
 * Deno serving, orphaned, after the tests. Each entry runs in its own process group.
 */
function stopEntry(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, "SIGTERM");
  } catch {
    // Already gone.
  }
}

/** Starts the function's Edge entry under Deno on a free port; resolves once it listens. */
async function serveEntry(name: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const { dir, entrypoint, importMap } = deployed(name);
  await cacheEntry(name);
  const child = spawn(
    DENO,
    ["run", "--quiet", "--config", importMap, "--allow-net", "--allow-env", "--allow-read", entrypoint],
    {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        DENO_SERVE_ADDRESS: `tcp:127.0.0.1:${port}`,
        NO_COLOR: "1",
        ...env,
      },
      // Its own process group, the launcher and Deno both: see stopEntry.
      detached: true,
    },
  );
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  // Exited, with everything it printed read.
  const closed = new Promise((resolve) => child.once("close", resolve));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 110_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      await closed;
      throw new Error(`deno exited (${child.exitCode}): ${output}`);
    }
    try {
      await fetch(url, { method: "OPTIONS" });
      return { url, child };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  stopEntry(child);
  throw new Error(`deno did not start ${name} in time: ${output}`);
}

describe("the functions' Edge entries under Deno", () => {
  let stack: TestStack;
  const children: ChildProcess[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    stack = await startTestStack({ name: "PGlite" }, { seed: false });
    env = {
      SUPABASE_URL: stack.url,
      SUPABASE_SERVICE_ROLE_KEY: stack.serviceKey,
      SUPABASE_ANON_KEY: stack.anonKey,
      STRIPE_SECRET_KEY: stack.stripe.secretKey,
      STRIPE_API_URL: stack.url,
      STRIPE_WEBHOOK_SECRET: stack.stripe.webhookSecret,
      ALLOWED_ORIGINS: SITE,
      SITE_URL: SITE,
      RESEND_API_KEY: stack.resend.apiKey,
      RESEND_API_URL: stack.resend.apiUrl,
      MAIL_FROM: "Advisor Accelerator <team@advisor-accelerator.local>",
      // As the local stack: content's sample offers may be sent (functions/_shared/offers.ts).
      ALLOW_SAMPLE_CONTENT: "1",
    };
  }, 60_000);
  afterAll(async () => {
    for (const child of children) stopEntry(child);
    await stack?.stop();
  });

  it("stripe-checkout answers its preflight and creates a Checkout Session at the stand-in", async () => {
    const { url, child } = await serveEntry("stripe-checkout", env);
    children.push(child);
    const preflight = await fetch(url, {
      method: "OPTIONS",
      headers: { origin: SITE, "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(SITE);

    const body = checkoutRequest(
      SITE,
      { checkoutKey: "OS_ACCELERATOR", stripeLookupKey: "os_accelerator" },
      "deno@example.com",
    );
    const response = await fetch(url, {
      method: "POST",
      headers: { origin: SITE, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    const { url: hosted } = (await response.json()) as { url: string };
    expect(hosted.startsWith(`${stack.url}/`)).toBe(true);
    const sessionId = /cs_test_[A-Za-z0-9]+/.exec(hosted)?.[0];
    const stripe = stripeClient({ STRIPE_SECRET_KEY: stack.stripe.secretKey, STRIPE_API_URL: stack.url });
    const session = await stripe.checkout.sessions.retrieve(sessionId!);
    expect(session.metadata?.product_key).toBe("OS_ACCELERATOR");
    expect(session.amount_total).toBe(299_900);

    const refused = await fetch(url, {
      method: "POST",
      headers: { origin: SITE, "content-type": "application/json" },
      body: JSON.stringify({ ...body, price_id: "price_cheap" }),
    });
    expect(refused.status).toBe(400);
  }, 120_000);

  it("an entry whose secrets are missing or malformed does not start, and says which (functions/_shared/env.ts)", async () => {
    const { STRIPE_WEBHOOK_SECRET: _unset, ...rest } = env;
    await expect(serveEntry("stripe-webhook", { ...rest, STRIPE_SECRET_KEY: "pk_test_publishable" })).rejects.toThrow(
      /stripe-webhook cannot start: STRIPE_SECRET_KEY must start with sk_live_ or sk_test_ or rk_live_ or rk_test_; STRIPE_WEBHOOK_SECRET is not set/,
    );
    await expect(serveEntry("stripe-checkout", { ...env, ALLOWED_ORIGINS: "advisoraccelerator.com" })).rejects.toThrow(
      /stripe-checkout cannot start: ALLOWED_ORIGINS must be comma-separated origins/,
    );
  }, 120_000);

  it("checkout-status answers the success page about a Checkout Session of the stand-in", async () => {
    const { url, child } = await serveEntry("checkout-status", env);
    children.push(child);
    const stripe = stripeClient({ STRIPE_SECRET_KEY: stack.stripe.secretKey, STRIPE_API_URL: stack.url });
    const { data: prices } = await stripe.prices.list({ lookup_keys: ["growth_mindset"], limit: 1 });
    const session = await stripe.checkout.sessions.create({
      mode: "payment",
      customer_email: "deno-status@example.com",
      line_items: [{ price: prices[0]!.id, quantity: 1 }],
      success_url: `${SITE}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
      metadata: { product_key: "GROWTH_MINDSET" },
    });
    const response = await fetch(`${url}?session_id=${session.id}`, { headers: { origin: SITE } });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(await response.json()).toMatchObject({
      state: "open",
      program: { key: "GROWTH_MINDSET" },
      amountCents: 30_000,
      email: "deno-status@example.com",
      reference: await orderReference(session.id),
    });
  }, 120_000);

  it("course-download asks the database as the customer: a signed-out caller 401, a customer without the lesson 404", async () => {
    const { url, child } = await serveEntry("course-download", env);
    children.push(child);
    const email = "deno-download@example.com";
    const password = "deno-download-2026";
    expect((await stack.admin().auth.admin.createUser({ email, password, email_confirm: true })).error).toBeNull();
    const customer = stack.client();
    const { data } = await customer.auth.signInWithPassword({ email, password });
    const ask = (token: string) =>
      fetch(url, {
        method: "POST",
        headers: { origin: SITE, "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ path: "growth-mindset/workbook.pdf" }),
      });
    const signedOut = await ask(stack.anonKey);
    expect(signedOut.status).toBe(401);
    expect(signedOut.headers.get("access-control-allow-origin")).toBe(SITE);
    const notTheirs = await ask(data.session!.access_token);
    expect(notTheirs.status).toBe(404);
    expect(await notTheirs.json()).toEqual({ error: "The file is not available." });
  }, 120_000);

  it("send-offer stores an admin's offer with its token's SHA-256 (Web Crypto) and e-mails the link through Resend's library", async () => {
    const { url, child } = await serveEntry("send-offer", env);
    children.push(child);
    const admin = stack.admin();
    const email = "deno-admin@example.com";
    const password = "deno-admin-2026";
    expect((await admin.auth.admin.createUser({ email, password, email_confirm: true })).error).toBeNull();
    expect((await admin.rpc("staff_add", { p_email: email, p_role: "admin" })).error).toBeNull();
    const { data } = await stack.client().auth.signInWithPassword({ email, password });
    const lead = await admin
      .from("leads")
      .insert({ name: "Deno Applicant", email: "deno-applicant@example.com", page: "/get-started" })
      .select("id")
      .single();
    const response = await fetch(url, {
      method: "POST",
      headers: {
        origin: SITE,
        "content-type": "application/json",
        authorization: `Bearer ${data.session!.access_token}`,
      },
      body: JSON.stringify({ lead: lead.data!.id, offer: "growth-mindset" }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("access-control-allow-origin")).toBe(SITE);
    const [mail] = stack.mail.list().filter((m) => m.to === "deno-applicant@example.com");
    const token = new RegExp(`${SITE}/offer/([A-Za-z0-9_-]{43})`).exec(mail!.text)![1]!;
    const { rows } = await stack.db.query<{ hash: string }>(
      "select encode(token_hash, 'hex') as hash from public.coached_offers where lead_id = $1",
      [lead.data!.id],
    );
    expect(rows).toEqual([{ hash: createHash("sha256").update(token).digest("hex") }]);
  }, 120_000);

  it("offer finds an offer by its token's SHA-256 (Web Crypto): an unknown link is not valid; billing-portal refuses a caller not signed in", async () => {
    const offer = await serveEntry("offer", env);
    children.push(offer.child);
    const unknown = await fetch(offer.url, {
      method: "POST",
      headers: { origin: SITE, "content-type": "application/json" },
      body: JSON.stringify({ token: "A".repeat(43) }),
    });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(((await unknown.json()) as { code: string }).code).toBe("not_found");

    const portal = await serveEntry("billing-portal", env);
    children.push(portal.child);
    const signedOut = await fetch(portal.url, {
      method: "POST",
      headers: { origin: SITE, "content-type": "application/json", authorization: `Bearer ${stack.anonKey}` },
      body: "{}",
    });
    expect(signedOut.status).toBe(401);
  }, 120_000);

  it("leads keeps a consultation request and e-mails the business through Resend's library, replies to the lead", async () => {
    const { url, child } = await serveEntry("leads", env);
    children.push(child);
    const email = "deno-lead@example.com";
    const body = leadRequest({ name: "Dana Whitfield", email }, "/get-started", 5_000, { utm_source: "deno" });
    const response = await fetch(url, {
      method: "POST",
      // What Supabase's gateway adds: the client's address.
      headers: { origin: SITE, "content-type": "application/json", "x-forwarded-for": "198.51.100.7" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe(SITE);
    const { rows } = await stack.db.query<{ notify_status: string; utm_source: string }>(
      "select notify_status, utm_source from public.leads where email = $1",
      [email],
    );
    expect(rows).toEqual([{ notify_status: "sent", utm_source: "deno" }]);
    const mail = stack.mail.list().filter((m) => m.replyTo === email);
    expect(mail.map((m) => [m.to, m.subject])).toEqual([[BUSINESS_EMAIL, "Consultation request: Dana Whitfield"]]);
  }, 120_000);

  it("stripe-webhook verifies the signature with Web Crypto, records the order and sends the access e-mail through Resend's library", async () => {
    const { url, child } = await serveEntry("stripe-webhook", env);
    children.push(child);
    const paid = checkoutSession("deno-buyer@example.com", {
      id: "cs_test_deno_entry_1",
      metadata: { product_key: "GROWTH_MINDSET" },
    });
    const { payload, signature } = await signEvent(
      stripeEvent("checkout.session.completed", paid),
      stack.stripe.webhookSecret,
    );
    const forged = await fetch(url, { method: "POST", headers: { "stripe-signature": "t=1,v1=00" }, body: payload });
    expect(forged.status).toBe(400);
    const response = await fetch(url, { method: "POST", headers: { "stripe-signature": signature }, body: payload });
    expect(response.status).toBe(200);
    const { rows } = await stack.db.query<{ status: string }>(
      "select status::text from public.stripe_orders where checkout_session_id = 'cs_test_deno_entry_1'",
    );
    expect(rows).toEqual([{ status: "completed" }]);
    expect(
      stack.mail
        .list()
        .filter((m) => m.to === "deno-buyer@example.com")
        .map((m) => m.subject),
    ).toEqual(["You now have Growth Mindset Mastery: set your password to start"]);
  }, 120_000);
});
