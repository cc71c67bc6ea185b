/**
 * Customers for the end-to-end tests, made on the local stack the way the product makes them:
 * an Auth user created by the service role (as the Stripe webhook will), with optional orders
 * written as the webhook writes them. Each test gets its own customer, so tests run in parallel.
 */
import { randomUUID } from "node:crypto";
import { expect, type Page } from "@playwright/test";
import { createClient } from "@supabase/supabase-js";
import { apiKey } from "@advisor-accelerator/local-stack";
import { cohortAt } from "@advisor-accelerator/shared/cohort.ts";
import { CATALOGUE, TIME_ZONE } from "../../functions/_shared/catalogue.ts";
import { LOCAL_SITE } from "./servers";

/** supabase-js as server code makes it: the service role, no session kept. */
export function serviceClient(url = LOCAL_SITE) {
  return createClient(url, apiKey("service_role"), { auth: { persistSession: false, autoRefreshToken: false } });
}

export interface Customer {
  id: string;
  email: string;
  password: string;
  /** The Checkout Session id of each order made with the customer, in the order given. */
  checkoutSessionIds?: string[];
}

export interface OrderSeed {
  product: string;
  status: "pending" | "completed" | "canceled" | "refunded" | "failed" | "disputed";
  cents: number;
  daysAgo?: number;
  /** Stripe's receipt page of the payment, as the webhook records it from the charge. */
  receiptUrl?: string;
}

/** A new customer with a confirmed e-mail (unless `confirmed: false`), the given orders, and a profile's name if given. */
export async function createCustomer(
  options: { confirmed?: boolean; orders?: OrderSeed[]; name?: string; fullName?: string; url?: string } = {},
): Promise<Customer> {
  const admin = serviceClient(options.url);
  const tag = randomUUID().slice(0, 8);
  const email = `${options.name ?? "advisor"}.${tag}@example.com`;
  const password = `pw-${randomUUID()}`;
  const { data, error } = await admin.auth.admin.createUser({
    email,
    password,
    email_confirm: options.confirmed ?? true,
  });
  expect(error).toBeNull();
  const id = data.user!.id;
  if (options.fullName) {
    // A profile is its owner's to write (the service role has no grant on it): as the settings page does.
    const own = createClient(options.url ?? LOCAL_SITE, apiKey("anon"), {
      auth: { persistSession: false, autoRefreshToken: false },
    });
    expect((await own.auth.signInWithPassword({ email, password })).error).toBeNull();
    expect((await own.from("profiles").upsert({ id, full_name: options.fullName })).error).toBeNull();
    await own.auth.signOut({ scope: "local" });
  }
  const checkoutSessionIds = options.orders?.map((_, i) => `cs_test_e2e${tag}${i}`) ?? [];
  if (options.orders?.length) {
    const customerId = `cus_e2e${tag}`;
    const customer = await admin.from("stripe_customers").insert({ user_id: id, customer_id: customerId });
    expect(customer.error).toBeNull();
    const receipts = options.orders.some((order) => order.receiptUrl);
    const rows = options.orders.map((order, i) => {
      const createdAt = new Date(Date.now() - (order.daysAgo ?? i) * 86_400_000);
      const starts = CATALOGUE.find((p) => p.key === order.product)?.cohortStarts ?? [];
      return {
        checkout_session_id: checkoutSessionIds[i]!,
        customer_id: customerId,
        product_key: order.product,
        amount_subtotal: order.cents,
        amount_total: order.cents,
        currency: "usd",
        payment_status: ["completed", "refunded", "disputed"].includes(order.status) ? "paid" : "unpaid",
        status: order.status,
        created_at: createdAt.toISOString(),
        // The cohort the checkout chose that day, as the webhook records it.
        cohort_start: cohortAt(starts, TIME_ZONE, createdAt)?.start ?? null,
        // Named only when some order has one: every row of a bulk insert lists the same columns.
        ...(receipts ? { receipt_url: order.receiptUrl ?? null } : {}),
      };
    });
    const orders = await admin.from("stripe_orders").insert(rows);
    expect(orders.error).toBeNull();
  }
  return { id, email, password, checkoutSessionIds };
}

/** Signs in through the /login form, as a customer does. */
export async function signIn(page: Page, customer: Customer, options: { remember?: boolean; next?: string } = {}) {
  await page.goto(options.next ? `/login?next=${encodeURIComponent(options.next)}` : "/login");
  await page.getByLabel("Email").fill(customer.email);
  await page.getByLabel("Password", { exact: true }).fill(customer.password);
  const remember = page.getByRole("checkbox", { name: "Remember me" });
  if (options.remember === false) await remember.uncheck();
  else await remember.check();
  await page.getByRole("button", { name: "Sign In" }).click();
}

/** The newest e-mail in the outbox to `to` (whose subject matches `subject`, when given). */
export async function lastMailTo(page: Page, to: string, subject?: RegExp) {
  let found: { subject: string; html: string; text: string } | undefined;
  await expect(async () => {
    const mails = (await (await page.request.get("/_local/outbox.json")).json()) as {
      to: string;
      subject: string;
      html: string;
      text: string;
    }[];
    found = mails.find((m) => m.to === to && (!subject || subject.test(m.subject)));
    expect(found, `an e-mail to ${to}`).toBeDefined();
  }).toPass({ timeout: 5_000 });
  return found!;
}

/** Sends the consultation form on `path` as a visitor would; answers the name sent. */
export async function sendLead(page: Page, path = "/get-started"): Promise<{ name: string; email: string }> {
  const tag = randomUUID().slice(0, 8);
  const lead = { name: `Morgan Desk${tag}`, email: `morgan.${tag}@example.com` };
  await page.goto(`${path}?utm_source=newsletter&utm_campaign=winter-webinar`);
  await page.getByLabel("Full name").fill(lead.name);
  await page.getByLabel("Email").fill(lead.email);
  await page.getByLabel("Firm name").fill("Desk Test Wealth");
  await page.getByLabel("Assets under management").selectOption("$50M to $100M");
  await page.getByLabel("What would you like help with?").fill("Growing past my first 100 households.");
  await page.getByRole("button", { name: "Request my strategy call" }).click();
  await expect(page.getByRole("heading", { name: /Your request is in/ })).toBeVisible();
  return lead;
}
