/**
 * Customers for the end-to-end tests, made on the local stack the way the product makes them:
 * an Auth user created by the service role (as the Stripe webhook will), with optional orders
 * written as the webhook writes them. Each test gets its own customer, so tests run in parallel.
 */
import { randomUUID } from "node:crypto";
import { expect, type Page } from "@playwright/test";
import { createClient } from "@supabase/supabase-js";
import { apiKey } from "../../local/jwt.ts";
import { LOCAL_SITE } from "./servers";

/** supabase-js as server code makes it: the service role, no session kept. */
export function serviceClient(url = LOCAL_SITE) {
  return createClient(url, apiKey("service_role"), { auth: { persistSession: false, autoRefreshToken: false } });
}

export interface Customer {
  id: string;
  email: string;
  password: string;
}

export interface OrderSeed {
  product: string;
  status: "pending" | "completed" | "canceled" | "refunded" | "failed";
  cents: number;
  daysAgo?: number;
}

/** A new customer with a confirmed e-mail (unless `confirmed: false`) and the given orders. */
export async function createCustomer(
  options: { confirmed?: boolean; orders?: OrderSeed[]; name?: string; url?: string } = {},
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
  if (options.orders?.length) {
    const customerId = `cus_e2e${tag}`;
    const customer = await admin.from("stripe_customers").insert({ user_id: id, customer_id: customerId });
    expect(customer.error).toBeNull();
    const rows = options.orders.map((order, i) => ({
      checkout_session_id: `cs_test_e2e_${tag}_${i}`,
      customer_id: customerId,
      product_key: order.product,
      amount_subtotal: order.cents,
      amount_total: order.cents,
      currency: "usd",
      payment_status: order.status === "completed" || order.status === "refunded" ? "paid" : "unpaid",
      status: order.status,
      created_at: new Date(Date.now() - (order.daysAgo ?? i) * 86_400_000).toISOString(),
    }));
    const orders = await admin.from("stripe_orders").insert(rows);
    expect(orders.error).toBeNull();
  }
  return { id, email, password };
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

/** The newest e-mail the stack sent to `to`, from the outbox. */
export async function lastMailTo(page: Page, to: string) {
  let found: { subject: string; html: string; text: string } | undefined;
  await expect(async () => {
    const mails = (await (await page.request.get("/_local/outbox.json")).json()) as {
      to: string;
      subject: string;
      html: string;
      text: string;
    }[];
    found = mails.find((m) => m.to === to);
    expect(found, `an e-mail to ${to}`).toBeDefined();
  }).toPass({ timeout: 5_000 });
  return found!;
}
