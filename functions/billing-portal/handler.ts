/**
 * `billing-portal`: the portal's "Manage payment method" button (docs/coached-offers.md). For a
 * signed-in customer with a payment plan or a membership, a session of Stripe's customer portal,
 * where they replace the card their payments are taken from, pay an open invoice, see what is
 * still to come and cancel the membership; answers `{ url }`, which the page opens. It comes back
 * to their purchase history.
 *
 * POST with the customer's access token (supabase-js `functions.invoke`; the gateway checks the
 * JWT, `verify_jwt = true` in supabase/config.toml). The Stripe customer is found by the caller's
 * own account (Auth's user, then `stripe_customers`, `payment_plans` and `memberships`), never
 * taken from the request, so no one opens another customer's portal. 404 for a customer with
 * neither. CORS for
 * the site's origins. Runs under Node (local stack, tests) and Deno (Supabase Edge, ./index.ts).
 */
import { jsonPost } from "../_shared/cors.ts";
import { type Env, type FunctionVariable, required } from "../_shared/env.ts";
import { stripeClient } from "../_shared/stripe.ts";
import { adminClient, bearerToken } from "../_shared/supabase-admin.ts";

/** What the function reads from its environment (functions/_shared/env.ts checks them at start). */
export const ENV = [
  "STRIPE_SECRET_KEY",
  "STRIPE_API_URL",
  "ALLOWED_ORIGINS",
  "SITE_URL",
  "SUPABASE_URL",
  "SUPABASE_SERVICE_ROLE_KEY",
] as const satisfies readonly FunctionVariable[];

/** Where the portal's "return" link leads: the purchase history the button is on. */
export const RETURN_PATH = "/portal/settings/purchase-history";

export default async function handler(request: Request, env: Env): Promise<Response> {
  const start = jsonPost(request, env.ALLOWED_ORIGINS);
  if (start.done) return start.done;
  const { answer } = start;

  const token = bearerToken(request);
  try {
    const admin = adminClient(env);
    const { data: who, error: unknown } = await admin.auth.getUser(token);
    if (unknown || !who.user) return answer({ error: "Sign in to manage your payment method." }, 401);
    const customers = await admin
      .from("stripe_customers")
      .select("customer_id")
      .eq("user_id", who.user.id)
      .is("deleted_at", null);
    if (customers.error) throw new Error(`stripe_customers: ${customers.error.message}`);
    const ids = (customers.data ?? []).map((c) => c.customer_id as string);
    // The newest plan's or membership's Stripe customer.
    const newest = async (table: "payment_plans" | "memberships") => {
      if (ids.length === 0) return null;
      const { data, error } = await admin
        .from(table)
        .select("customer_id, created_at")
        .in("customer_id", ids)
        .order("created_at", { ascending: false })
        .limit(1)
        .maybeSingle();
      if (error) throw new Error(`${table}: ${error.message}`);
      return data as { customer_id: string; created_at: string } | null;
    };
    const [plan, membership] = await Promise.all([newest("payment_plans"), newest("memberships")]);
    const customer = [plan, membership]
      .filter((row) => row !== null)
      .sort((a, b) => b.created_at.localeCompare(a.created_at))[0]?.customer_id;
    if (!customer) {
      return answer({ error: "You have no payment plan or membership whose card could be changed." }, 404);
    }

    const { SITE_URL } = required(env, ["SITE_URL"]);
    const session = await stripeClient(env).billingPortal.sessions.create({
      customer,
      return_url: new URL(RETURN_PATH, SITE_URL).href,
    });
    return answer({ url: session.url });
  } catch (error) {
    console.error("billing-portal failed:", error);
    return answer({ error: "Your payment settings could not be opened just now. Please try again in a moment." }, 502);
  }
}
