/**
 * The local stack's stand-in for Stripe: the part of Stripe's API the product calls (`/v1/...`,
 * ./api.ts) on the stack's own origin, the hosted checkout page and a local dashboard
 * (`/_local/stripe`, ./pages.ts), the payment lifecycle (./payments.ts) and disputes
 * (./disputes.ts), receipts (their pages and e-mails into the outbox, ./receipts.ts) and signed
 * webhook deliveries with retries (./webhooks.ts), all kept in the data folder (./store.ts). The functions reach it with the real
 * `stripe` library when no STRIPE_SECRET_KEY is set (packages/local-stack/src/functions.ts).
 * `StripeStandIn` is the handle tests use: its keys (the secret key, DEPLOY.md's restricted keys
 * and any other restricted key, ./permissions.ts), the steps a person takes on the dashboard
 * (settle, fail, refund, expire), the delivery log and `idle()`. Dev and test only: production is
 * Stripe.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
import type { Mailer } from "../mail.ts";
import { PROJECT_ROOT } from "../project.ts";
import { handleApi } from "./api.ts";
import { createPayments, NO_REQUEST } from "./payments.ts";
import {
  authenticationPath,
  CHECKOUT_PATH,
  INVOICES_PATH,
  PORTAL_PATH,
  STRIPE_PAGES_PATH,
  stripePage,
} from "./pages.ts";
import { DEPLOY_KEYS, type Permissions, type RestrictedKey } from "./permissions.ts";
import { type CustomerEmails, createReceipts, RECEIPTS_PATH } from "./receipts.ts";
import { openStore, type Delivery, type StripeObject } from "./store.ts";
import { createDeliverer, DEFAULT_RETRY_DELAYS_MS, DEFAULT_TIMEOUT_MS, type DeliveryOptions } from "./webhooks.ts";

export { API_VERSION } from "./objects.ts";
export { signatureHeader } from "./webhooks.ts";
export type { Delivery } from "./store.ts";
export { CHECKOUT_PATH, RECEIPTS_PATH, STRIPE_PAGES_PATH };
export { DEPLOY_KEYS, RESOURCES } from "./permissions.ts";
export type { Permissions, Resource, RestrictedKey } from "./permissions.ts";
export type { CustomerEmails, DeliveryOptions };

/** Where the API answers, on the stack's origin. */
export const STRIPE_API_PREFIX = "/v1";

/** The webhook function the events go to, on the stack. */
export const WEBHOOK_PATH = "/functions/v1/stripe-webhook";

export interface StripeOptions {
  /** Delays between a failed delivery and its retries; default 2 s, 10 s, 1 min, 5 min, 30 min, 2 h. */
  retryDelaysMs?: number[];
  /** How long the endpoint has to answer a delivery; default 20 s. */
  timeoutMs?: number;
  /** Where events are delivered; default the stack's `/functions/v1/stripe-webhook`. */
  webhookUrl?: string;
  /** Make the catalogue's products and prices (functions/_shared/catalogue.ts) at start; default true. */
  catalogue?: boolean;
  /** The account's Customer emails settings ("Successful payments", "Refunds"); both off by default. */
  customerEmails?: CustomerEmails;
  /** How many deliveries go at once and how they are unordered (./webhooks.ts); tests may fix the order. */
  delivery?: DeliveryOptions;
  /** How long after it is made a refund of the failing-refund test card fails; default 5 s. */
  refundFailureDelayMs?: number;
  /** How long after its test evidence is submitted a dispute is won or lost; default 5 s. */
  disputeDecisionDelayMs?: number;
}

/** The stand-in as tests and scripts drive it. */
export interface StripeStandIn {
  secretKey: string;
  webhookSecret: string;
  /** DEPLOY.md's restricted key for the functions ("Advisor Accelerator functions", `DEPLOY_KEYS.functions`). */
  functionsKey: string;
  /** DEPLOY.md's restricted key for `npm run stripe:setup` ("Advisor Accelerator catalogue", `DEPLOY_KEYS.catalogue`). */
  catalogueKey: string;
  /** Makes a restricted key (`rk_test_…`) with these permissions, as the Dashboard's form does. */
  restrictedKey(permissions: Permissions, name?: string): string;
  /** Every restricted key, with its name and permissions. */
  restrictedKeys(): RestrictedKey[];
  /** The API's address: STRIPE_API_URL for the `stripe` library (the stack's URL). */
  apiUrl: string;
  webhookUrl: string;
  /** The local dashboard. */
  dashboardUrl: string;
  /** Settles a session's pending bank debit (checkout.session.async_payment_succeeded). */
  settle(sessionId: string): StripeObject;
  /** Fails a session's pending bank debit (checkout.session.async_payment_failed). */
  fail(sessionId: string): StripeObject;
  /** Refunds in full the payment of a session (cs_…) or a PaymentIntent (pi_…). */
  refund(sessionOrPaymentIntent: string): StripeObject;
  /** Expires an open session (checkout.session.expired). */
  expire(sessionId: string): StripeObject;
  /** The delivery log, in the order the events were made. */
  deliveries(): Delivery[];
  /** Resolves when no delivery is pending or under way, no refund is waiting to fail and no dispute to be decided. */
  idle(): Promise<void>;
}

export interface StripeService {
  handle: StripeStandIn;
  /** Answers `/v1/...`. */
  api(request: Request): Promise<Response>;
  /** Answers the `/_local/stripe` pages; null for other paths. */
  page(request: Request): Promise<Response | null>;
  close(): Promise<void>;
}

/** The merchant's name on the hosted page: content/site.yaml's brand. */
function brandOf(root: string): string {
  try {
    const site = load(readFileSync(join(root, "content", "site.yaml"), "utf8")) as { site?: { brand?: string } };
    return site?.site?.brand || "Advisor Accelerator";
  } catch {
    return "Advisor Accelerator";
  }
}

export function createStripe(options: StripeOptions & { url: string; dataDir?: string; mail: Mailer }): StripeService {
  const store = openStore(options.dataDir || undefined);
  const webhookUrl = options.webhookUrl ?? `${options.url}${WEBHOOK_PATH}`;
  const deliverer = createDeliverer(store, {
    url: webhookUrl,
    secret: store.keys.webhookSecret,
    retryDelaysMs: options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...options.delivery,
  });
  const brand = brandOf(PROJECT_ROOT);
  const receipts = createReceipts({
    store,
    mail: options.mail,
    brand,
    url: options.url,
    secretKey: store.keys.secretKey,
    customerEmails: options.customerEmails,
  });
  const payments = createPayments(store, deliverer, brand, receipts, {
    refundFailureDelayMs: options.refundFailureDelayMs,
    disputeDecisionDelayMs: options.disputeDecisionDelayMs,
    authenticationUrl: (id) => `${options.url}${authenticationPath(id)}`,
    invoiceUrl: (id) => `${options.url}${INVOICES_PATH}/${id}`,
  });
  // Sessions that expired while the stack was stopped expire now, as Stripe would have.
  payments.sweep();

  const keyNamed = (name: string) => store.keys.restricted.find((k) => k.name === name)!.key;
  const handle: StripeStandIn = {
    secretKey: store.keys.secretKey,
    webhookSecret: store.keys.webhookSecret,
    functionsKey: keyNamed(DEPLOY_KEYS.functions.name),
    catalogueKey: keyNamed(DEPLOY_KEYS.catalogue.name),
    restrictedKey: (permissions, name = `Restricted key ${store.keys.restricted.length + 1}`) =>
      store.restrictedKey(name, permissions).key,
    restrictedKeys: () => structuredClone(store.keys.restricted),
    apiUrl: options.url,
    webhookUrl,
    dashboardUrl: `${options.url}${STRIPE_PAGES_PATH}`,
    settle: (id) => payments.settle(id),
    fail: (id) => payments.fail(id),
    refund(target) {
      let paymentIntent = target;
      if (target.startsWith("cs_")) {
        const session = store.get("checkout.session", target);
        if (!session) throw new Error(`No such checkout.session: '${target}'`);
        paymentIntent = (session.payment_intent as string | null) ?? "";
      }
      return payments.refund({ paymentIntent }, {}, NO_REQUEST);
    },
    expire: (id) => payments.expire(id, NO_REQUEST),
    deliveries: () => structuredClone(Object.values(store.state.deliveries).sort((a, b) => a.seq - b.seq)),
    async idle() {
      // A failing refund or a decided dispute sends events, and their deliveries may end as more wait.
      do {
        await payments.idle();
        await deliverer.idle();
      } while (payments.waiting());
    },
  };

  return {
    handle,
    api: (request) =>
      handleApi(request, {
        store,
        payments,
        url: options.url,
        checkoutPath: CHECKOUT_PATH,
        portalPath: PORTAL_PATH,
        keysUrl: `${options.url}${STRIPE_PAGES_PATH}`,
      }),
    page: (request) =>
      stripePage(request, {
        payments,
        brand,
        url: options.url,
        secretKey: store.keys.secretKey,
        webhookSecret: store.keys.webhookSecret,
        restrictedKeys: () => store.keys.restricted,
        webhookUrl,
        resend: (id) => deliverer.resend(id),
        receipt: (pathname) => receipts.page(pathname),
      }),
    async close() {
      payments.close();
      await deliverer.close();
      store.flush();
    },
  };
}
