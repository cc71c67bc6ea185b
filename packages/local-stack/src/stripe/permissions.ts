/**
 * Restricted API keys (`rk_test_…`) in the Stripe stand-in, as Stripe's Dashboard makes them
 * (Developers → API keys → Create restricted key: each resource None, Read or Write) and as its
 * API enforces them:
 * - a key reaches a resource only with its permission: `GET` needs Read, `POST` needs Write, and
 *   "Write permissions imply read permissions" (docs: API keys, restricted API keys);
 * - a permission can imply others: Checkout Sessions grants PaymentIntents and Products Read
 *   (docs: Security, Permissions, the Checkout Session row: "This permission also implies the
 *   following permissions: … payment_intent_read, … product_read …"), Customers grants Test
 *   clocks Read (the Customer row: "implies … billing_clock_read");
 * - Billing's resources go by the permissions reference's names: `subscription`, `invoice`,
 *   `payment_method`, `billing_clock` (Test clocks), `customer_portal` (the portal's sessions);
 * - `expand[]` reaches the expanded object only with its Read (docs: Stripe Apps, Permissions
 *   reference: "If you're expanding objects … request at least one corresponding permission for
 *   each API object you expand");
 * - a request without its permission is refused before anything runs: 403, `invalid_request_error`
 *   with code `more_permissions_required`, naming the key (masked to its last six characters),
 *   the account and the permission to enable (what Stripe answers today; stripe-node reads a 403
 *   as `StripePermissionError`, `Error.ts` `generateV1Error`).
 * `DEPLOY_KEYS` are the keys DEPLOY.md prescribes ("A restricted key for the functions", "A
 * restricted key for the catalogue"); the stand-in makes them once per data folder, and
 * `restrictedKey()` on its handle makes others. Dev and test only.
 */
import { StripeError } from "./params.ts";
import type { Collection } from "./store.ts";

/** The resources of the restricted-key form the stand-in serves, by their Dashboard label, with Stripe's permission name. */
export const RESOURCES = {
  "Checkout Sessions": "checkout_session",
  Customers: "customer",
  Prices: "plan",
  Products: "product",
  PaymentIntents: "payment_intent",
  Charges: "charge",
  Refunds: "refund",
  Disputes: "dispute",
  Events: "event",
  PaymentMethods: "payment_method",
  Subscriptions: "subscription",
  Invoices: "invoice",
  "Test clocks": "billing_clock",
  "Customer portal": "customer_portal",
} as const;

export type Resource = keyof typeof RESOURCES;
export type Access = "read" | "write";
/** A restricted key's permissions: each resource's Read or Write; a resource left out is None. */
export type Permissions = Partial<Record<Resource, Access>>;
/** What a request needs: one permission (`plan`, `charge`…) at one level. */
export interface Need {
  permission: (typeof RESOURCES)[Resource];
  access: Access;
}

export interface RestrictedKey {
  /** The key's name on the Dashboard. */
  name: string;
  key: string;
  permissions: Permissions;
}

/** DEPLOY.md's restricted keys: the functions' `STRIPE_SECRET_KEY` and the deploy workflow's `STRIPE_SETUP_KEY`. */
export const DEPLOY_KEYS = {
  functions: {
    name: "Advisor Accelerator functions",
    permissions: {
      "Checkout Sessions": "write",
      Customers: "write",
      Prices: "read",
      PaymentIntents: "read",
      Charges: "read",
      Subscriptions: "write",
      "Customer portal": "write",
      "Test clocks": "write",
    },
  },
  catalogue: {
    name: "Advisor Accelerator catalogue",
    permissions: { Products: "write", Prices: "write" },
  },
} as const satisfies Record<string, { name: string; permissions: Permissions }>;

/** The permission of each kind of object the stand-in keeps. */
export const PERMISSION_OF: Record<Collection, Need["permission"]> = {
  product: "product",
  price: "plan",
  customer: "customer",
  "checkout.session": "checkout_session",
  payment_intent: "payment_intent",
  charge: "charge",
  refund: "refund",
  dispute: "dispute",
  event: "event",
  payment_method: "payment_method",
  subscription: "subscription",
  // The permissions reference names no permission of its own for schedules: they are part of
  // Subscriptions in the Dashboard's form (the stand-in's reading; not confirmed).
  subscription_schedule: "subscription",
  invoice: "invoice",
  invoice_payment: "invoice",
  "test_helpers.test_clock": "billing_clock",
  "billing_portal.session": "customer_portal",
};

/** Permissions a permission brings with it (docs: Security, Permissions). */
const IMPLIED: Partial<Record<Need["permission"], string[]>> = {
  checkout_session: ["payment_intent_read", "product_read"],
  // "Customer: … This permission also implies the following permission: billing_clock_read."
  customer: ["billing_clock_read"],
};

/** Checks a key's permissions as the Dashboard's form would take them; throws on an unknown resource or level. */
export function checkPermissions(permissions: Permissions): Permissions {
  for (const [resource, access] of Object.entries(permissions)) {
    if (!(resource in RESOURCES)) {
      throw new Error(
        `Unknown resource "${resource}" for a restricted key; the stand-in serves ${Object.keys(RESOURCES).join(", ")}.`,
      );
    }
    if (access !== "read" && access !== "write")
      throw new Error(`${resource}: "${String(access)}" is not read or write.`);
  }
  return { ...permissions };
}

/** Every permission name the key holds: `plan_read`, `customer_write`…, with those they imply. */
export function grantsOf(permissions: Permissions): Set<string> {
  const grants = new Set<string>();
  for (const [resource, access] of Object.entries(permissions)) {
    const base = RESOURCES[resource as Resource];
    if (!base || !access) continue;
    grants.add(`${base}_read`);
    if (access === "write") grants.add(`${base}_write`);
    for (const implied of IMPLIED[base] ?? []) grants.add(implied);
  }
  return grants;
}

/** Stripe's mask of a key in a permission refusal: the prefix, then stars, then its last six characters. */
export function maskRestricted(key: string): string {
  const prefix = /^(sk|rk)_(test|live)_/.exec(key)?.[0] ?? "";
  const rest = key.slice(prefix.length);
  if (rest.length <= 6) return key;
  return `${prefix}${"*".repeat(rest.length - 6)}${rest.slice(-6)}`;
}

const labelOf = (permission: Need["permission"]) =>
  (Object.keys(RESOURCES) as Resource[]).find((resource) => RESOURCES[resource] === permission)!;

/** The first of `needs` the key lacks, or null when it may make the request. */
export function missing(key: RestrictedKey, needs: Need[]): Need | null {
  const grants = grantsOf(key.permissions);
  return needs.find((need) => !grants.has(`${need.permission}_${need.access}`)) ?? null;
}

/** Stripe's refusal of a restricted key without the permission a request needs. */
export function permissionDenied(key: RestrictedKey, need: Need, accountId: string, editUrl: string): StripeError {
  const level = need.access === "write" ? "Write" : "Read";
  return new StripeError(
    403,
    `Permission denied. The provided key '${maskRestricted(key.key)}' does not have the required permissions for this endpoint on account '${accountId}'. Enabling ${labelOf(need.permission)} ${level} ('${need.permission}_${need.access}') permissions on this key would allow this request to continue. You can edit permissions at ${editUrl}`,
    { code: "more_permissions_required" },
  );
}
