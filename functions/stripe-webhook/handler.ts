/**
 * `stripe-webhook`: Stripe's events about our Checkout Sessions and refunds. The signature is
 * verified on the raw body with the library's async verifier (the synchronous one needs Node's
 * crypto, absent on edge runtimes), with Stripe's 300-second tolerance, before anything is read.
 * The event is processed before the answer (./process.ts): a 2xx tells Stripe the purchase is
 * recorded and its e-mail sent, a 5xx makes it deliver again later (an e-mail that could not go
 * out yet is sent by that delivery); events of no concern get a 2xx. Deployed with
 * `verify_jwt = false` (supabase/config.toml): Stripe sends no Supabase JWT, its signature is the
 * check. Runs under Node (local stack, tests) and Deno (Supabase Edge, ./index.ts).
 */
import { readCapped, tooLarge } from "../_shared/body.ts";
import { adminClient } from "../_shared/supabase-admin.ts";
import { ConfigError, type Env, type FunctionVariable, json, required } from "../_shared/env.ts";
import { cryptoProvider, type Stripe, stripeClient } from "../_shared/stripe.ts";
import { processEvent } from "./process.ts";

/** What the function reads from its environment (functions/_shared/env.ts checks them at start). */
export const ENV = [
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "STRIPE_API_URL",
  "SUPABASE_URL",
  "SUPABASE_SERVICE_ROLE_KEY",
  "SITE_URL",
  "RESEND_API_KEY",
  "RESEND_API_URL",
  "MAIL_FROM",
  "MAIL_REPLY_TO",
] as const satisfies readonly FunctionVariable[];

/** Stripe's default: a signature older than five minutes is refused (a replayed request). */
const TOLERANCE_SECONDS = 300;

/**
 * The most an event may weigh before its signature is checked. Stripe's events carry one object
 * (a Checkout Session, a charge) and weigh a few kilobytes; 1 MB leaves them room many times over
 * while a forged flood of large bodies cannot exhaust the worker's memory before it is refused.
 */
export const MAX_BODY_BYTES = 1024 * 1024;

export default async function handler(request: Request, env: Env): Promise<Response> {
  if (request.method !== "POST") return json({ error: "Method not allowed: use POST." }, 405, { allow: "POST" });
  let stripe: Stripe;
  let secret: string;
  try {
    stripe = stripeClient(env);
    secret = required(env, ["STRIPE_WEBHOOK_SECRET"]).STRIPE_WEBHOOK_SECRET;
  } catch (error) {
    console.error("stripe-webhook is not configured:", (error as Error).message);
    return json({ error: "Webhook not configured." }, 500);
  }
  const signature = request.headers.get("stripe-signature");
  if (!signature) return json({ error: "Missing Stripe-Signature header." }, 400);
  const payload = await readCapped(request, MAX_BODY_BYTES);
  if (payload === null) {
    console.error(`stripe-webhook: a body over ${MAX_BODY_BYTES} bytes was refused unread.`);
    return json({ error: tooLarge(MAX_BODY_BYTES) }, 413);
  }
  let event: Stripe.Event;
  try {
    event = await stripe.webhooks.constructEventAsync(payload, signature, secret, TOLERANCE_SECONDS, cryptoProvider);
  } catch {
    return json({ error: "Invalid signature." }, 400);
  }
  // constructEvent checks the signature, not the shape: a signed `null` (or any other JSON) comes
  // back as parsed. Answered 400 and logged, never a crash Stripe would retry for three days.
  const shape = event as unknown as { id?: unknown; type?: unknown; data?: { object?: unknown } } | null;
  if (
    typeof shape !== "object" ||
    shape === null ||
    Array.isArray(shape) ||
    typeof shape.id !== "string" ||
    typeof shape.type !== "string" ||
    typeof shape.data?.object !== "object" ||
    shape.data.object === null
  ) {
    console.error("stripe-webhook: a correctly signed body that is not a Stripe event was refused.");
    return json({ error: "The signed body is not a Stripe event." }, 400);
  }
  try {
    const outcome = await processEvent(event, { stripe, admin: adminClient(env), mail: env });
    return json({ received: true, outcome });
  } catch (error) {
    console.error(`stripe-webhook could not process ${event.type} ${event.id}:`, error);
    const configured = !(error instanceof ConfigError);
    return json({ error: configured ? "Processing failed; Stripe will retry." : "Webhook not configured." }, 500);
  }
}
