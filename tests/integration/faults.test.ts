/**
 * Launch-day faults, on the local stack with the real webhook function and supabase-js:
 *   - the database goes down while Stripe delivers: the delivery gets a 5xx (so Stripe retries),
 *     nothing half-done stays behind, and the retried delivery records the order once;
 *   - the stack is killed (SIGKILL, no goodbye) while deliveries are in flight and started again
 *     on the same data folder: every delivery it acknowledged kept its order and account, and
 *     Stripe's retries then complete the rest, once each.
 * (A webhook outage followed by `npm run stripe:reconcile` is tests/integration/stripe-operations.test.ts.)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiKey,
  type PostgresServer,
  START_SCRIPT,
  startPostgres,
  startTestStack,
  type TestStack,
} from "@advisor-accelerator/local-stack";
import { checkoutSession, type Delivery, signEvent, stripeEvent } from "../support/stripe-events.ts";

const root = join(import.meta.dirname, "../..");
const tag = () => randomBytes(5).toString("hex");

const deliver = (url: string, delivery: Delivery) =>
  fetch(`${url}/functions/v1/stripe-webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": delivery.signature },
    body: delivery.payload,
  });

/** Orders of these Checkout Sessions and accounts of these e-mails, counted through the service role. */
async function recorded(url: string, sessions: string[], emails: string[]) {
  const admin = createClient(url, apiKey("service_role"), { auth: { persistSession: false } });
  const orders = await admin.from("stripe_orders").select("checkout_session_id").in("checkout_session_id", sessions);
  expect(orders.error).toBeNull();
  const accounts = new Set<string>();
  for (const email of emails) {
    const { data, error } = await admin.rpc("auth_user_id_by_email", { p_email: email });
    expect(error).toBeNull();
    if (data) accounts.add(email);
  }
  return { orders: orders.data!.map((o) => o.checkout_session_id as string), accounts };
}

describe("the database unavailable during a delivery (PostgreSQL)", () => {
  let server: PostgresServer;
  let stack: TestStack;

  beforeAll(async () => {
    server = startPostgres();
    stack = await startTestStack({ name: "PostgreSQL" }, { seed: false, databaseUrl: server.url });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    server?.stop();
  });

  it("answers 5xx and leaves nothing half-done; the retried delivery records the order and account once", async () => {
    const email = `outage-${tag()}@example.com`;
    const paid = checkoutSession(email);
    const delivery = await signEvent(stripeEvent("checkout.session.completed", paid), stack.stripe.webhookSecret);
    server.halt();
    let during: Response;
    try {
      during = await deliver(stack.url, delivery);
    } finally {
      server.resume();
    }
    expect(during.status).toBe(500);
    expect(await during.json()).toEqual({ error: "Processing failed; Stripe will retry." });
    expect(await recorded(stack.url, [paid.id], [email])).toEqual({ orders: [], accounts: new Set() });

    // Stripe delivers again; the stack's pool reconnects to the database that is back.
    const retried = await deliver(stack.url, delivery);
    expect(retried.status).toBe(200);
    expect((await deliver(stack.url, delivery)).status).toBe(200);
    expect(await recorded(stack.url, [paid.id], [email])).toEqual({ orders: [paid.id], accounts: new Set([email]) });
    const { rows } = await stack.db.query<{ status: string }>(
      "select status::text from public.stripe_orders where checkout_session_id = $1",
      [paid.id],
    );
    expect(rows).toEqual([{ status: "completed" }]);
    const mails = (await (await fetch(`${stack.url}/_local/outbox.json`)).json()) as { to: string }[];
    expect(mails.filter((m) => m.to === email)).toHaveLength(1);
  }, 60_000);
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** `npm run preview`'s stack as its own process (START_SCRIPT), on a data folder; resolves once it serves. */
async function launch(dataDir: string, siteDir: string): Promise<{ child: ChildProcess; url: string; secret: string }> {
  const port = await freePort();
  const env = { ...process.env, STRIPE_SECRET_KEY: "", STRIPE_WEBHOOK_SECRET: "", DATABASE_URL: "", HOST: "" };
  const child = spawn(process.execPath, [START_SCRIPT, "--port", String(port), "--dir", siteDir, "--data", dataDir], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const secret = /webhook signing secret (whsec_\w+)/.exec(output)?.[1];
    if (secret) return { child, url: `http://localhost:${port}`, secret };
    if (child.exitCode !== null) throw new Error(`the stack exited (${child.exitCode}): ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`the stack did not start: ${output}`);
}

describe("the stack killed mid-delivery and started again (embedded Postgres, as npm start runs it)", () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill("SIGKILL");
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("keeps every acknowledged order and account; Stripe's retries then record the rest once", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "faults-data-"));
    const siteDir = mkdtempSync(join(tmpdir(), "faults-site-"));
    dirs.push(dataDir, siteDir);
    writeFileSync(join(siteDir, "index.html"), "<h1>site</h1>");

    const first = await launch(dataDir, siteDir);
    children.push(first.child);
    const run = tag();
    const buyers = Array.from({ length: 40 }, (_, i) => {
      const email = `crash-${run}-${i}@example.com`;
      return { email, session: checkoutSession(email) };
    });
    const events = buyers.map((buyer) => stripeEvent("checkout.session.completed", buyer.session));
    const sign = (secret: string) => Promise.all(events.map((event) => signEvent(event, secret)));

    // Deliveries 8 at a time; the process is killed once ten have been acknowledged.
    const deliveries = await sign(first.secret);
    const acknowledged: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < deliveries.length) {
          const i = next++;
          try {
            const response = await deliver(first.url, deliveries[i]!);
            if (response.status === 200) acknowledged.push(i);
            if (acknowledged.length === 10) first.child.kill("SIGKILL");
          } catch {
            // The connection died with the process: Stripe counts it as not delivered.
          }
        }
      }),
    );
    if (first.child.exitCode === null && first.child.signalCode === null) {
      await new Promise((resolve) => first.child.once("exit", resolve));
    }
    expect(acknowledged.length).toBeGreaterThanOrEqual(10);
    expect(acknowledged.length).toBeLessThan(buyers.length);

    const second = await launch(dataDir, siteDir);
    children.push(second.child);
    const kept = await recorded(
      second.url,
      buyers.map((b) => b.session.id),
      buyers.map((b) => b.email),
    );
    for (const i of acknowledged) {
      expect(kept.orders, `order of acknowledged delivery ${i}`).toContain(buyers[i]!.session.id);
      expect(kept.accounts.has(buyers[i]!.email), `account of acknowledged delivery ${i}`).toBe(true);
    }

    // Stripe retries what was not acknowledged, later (its first retry comes after minutes: a claim
    // on a new buyer's account left by the killed process is taken over after two minutes, so the
    // claims are dated back as that time would), and may deliver acknowledged events again.
    const admin = createClient(second.url, apiKey("service_role"), { auth: { persistSession: false } });
    const aged = await admin
      .from("buyer_invites")
      .update({ claimed_at: new Date(Date.now() - 3 * 60_000).toISOString() })
      .is("user_id", null)
      .like("email", `crash-${run}-%`);
    expect(aged.error).toBeNull();
    const redeliveries = await sign(second.secret);
    const statuses = [];
    for (const delivery of redeliveries) statuses.push((await deliver(second.url, delivery)).status);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);

    const after = await recorded(
      second.url,
      buyers.map((b) => b.session.id),
      buyers.map((b) => b.email),
    );
    expect(after.orders.sort()).toEqual(buyers.map((b) => b.session.id).sort());
    expect(after.accounts.size).toBe(buyers.length);
    // At most one set-password e-mail per buyer, never two.
    const mails = (await (await fetch(`${second.url}/_local/outbox.json`)).json()) as { to: string }[];
    const perBuyer = new Map<string, number>();
    for (const mail of mails) perBuyer.set(mail.to, (perBuyer.get(mail.to) ?? 0) + 1);
    expect([...perBuyer.values()].filter((n) => n > 1)).toEqual([]);
    console.info(
      `Killed after ${acknowledged.length} acknowledged of ${buyers.length} deliveries: all ${acknowledged.length} kept; after Stripe's retries ${after.orders.length} orders, ${after.accounts.size} accounts, 0 duplicates`,
    );
  }, 180_000);
});
