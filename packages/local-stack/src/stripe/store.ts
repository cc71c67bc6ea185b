/**
 * What the Stripe stand-in keeps: its API keys, every object it made (in Stripe's shapes), the
 * events, the idempotency keys of the last 24 hours and the webhook deliveries. With a data folder
 * it lives in `<dataDir>/stripe/`: `keys.json` (the secret key, the webhook signing secret and the
 * restricted keys, made once; ./permissions.ts) and `state.json`, rewritten atomically (a temporary file renamed over it) at most
 * every 20 ms while changes come in, and at once when the stack stops, so a restart resumes where
 * it stopped (a rewrite per change made each request slower as the state grew); without one, in
 * memory. Dev and test only.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { makePrivateFolder, writePrivateFileSync } from "../data-folder.ts";
import type { Decline, PayInput } from "./payments.ts";
import { checkPermissions, DEPLOY_KEYS, type Permissions, type RestrictedKey } from "./permissions.ts";

/** A Stripe object as the API answers it. */
export type StripeObject = Record<string, unknown> & { id: string; object: string; created: number };

/** The collections the stand-in keeps, by the `object` name of what they hold. */
export const COLLECTIONS = [
  "product",
  "price",
  "customer",
  "checkout.session",
  "payment_intent",
  "charge",
  "refund",
  "dispute",
  "event",
  "payment_method",
  "subscription",
  "subscription_schedule",
  "invoice",
  "invoice_payment",
  "test_helpers.test_clock",
  "billing_portal.session",
] as const;
export type Collection = (typeof COLLECTIONS)[number];

/** One kept object: Stripe's shape plus the order it was made in (for lists of one second). */
export interface Stored {
  seq: number;
  data: StripeObject;
}

/**
 * What a Checkout Session keeps beside its API shape: its line items (Stripe answers them only on
 * their own path or when expanded) and the `payment_intent_data` its PaymentIntent gets when the
 * buyer pays (Stripe makes the PaymentIntent then, not at creation).
 */
export interface CheckoutExtras {
  lineItems: StripeObject[];
  paymentIntentData: {
    metadata: Record<string, string>;
    description: string | null;
    /** `payment_intent_data.receipt_email` (absent in state kept before receipts). */
    receiptEmail?: string | null;
  };
  /** The payment waiting for the buyer's 3-D Secure answer, with the PaymentMethod it made. */
  authentication?: PayInput & { paymentMethod: string };
  /** `payment_intent_data.setup_future_usage`: the card is kept on the session's customer. */
  setupFutureUsage?: "off_session" | "on_session" | null;
  /** `subscription_data` of a session in subscription mode (./billing.ts makes the Subscription). */
  subscriptionData?: { metadata: Record<string, string>; description: string | null };
}

/** The answer kept for an idempotency key: replayed for the same request within 24 hours. */
export interface IdempotencyRecord {
  fingerprint: string;
  status: number;
  body: string;
  at: number;
}

export interface DeliveryAttempt {
  /** Unix milliseconds. */
  at: number;
  /** The endpoint's HTTP status, or null when it could not be reached or timed out. */
  status: number | null;
  error?: string;
  durationMs: number;
}

/** One event's delivery to the webhook endpoint: the delivery log's entry. */
export interface Delivery {
  eventId: string;
  type: string;
  /** The order events were made in (the log's order; deliveries go out in none, ./webhooks.ts). */
  seq: number;
  status: "pending" | "succeeded" | "failed";
  attempts: DeliveryAttempt[];
  /** Unix milliseconds of the next attempt, null when none is due. */
  nextAttemptAt: number | null;
}

export interface State {
  version: 1;
  seq: number;
  objects: Record<Collection, Record<string, Stored>>;
  checkout: Record<string, CheckoutExtras>;
  idempotency: Record<string, IdempotencyRecord>;
  deliveries: Record<string, Delivery>;
  /**
   * What test cards do later (./payments.ts): charges whose refunds fail, when each such refund
   * fails, and when each dispute with submitted evidence is decided (Unix ms).
   */
  testing: {
    refundsFail: Record<string, true>;
    refundFailures: Record<string, number>;
    disputeDecisions: Record<string, number>;
    /**
     * PaymentMethods of the test card that attaches but whose charges fail (4000 0000 0000 0341),
     * with the decline each later charge gets (./billing.ts).
     */
    declinesLater: Record<string, Decline>;
  };
}

export interface Keys {
  secretKey: string;
  webhookSecret: string;
  /** Restricted keys (`rk_test_…`): DEPLOY.md's, made with the others, then any made since. */
  restricted: RestrictedKey[];
}

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Random letters and digits, as Stripe's ids are made of. */
export function randomId(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

/** Lengths of the random part of Stripe's ids, by prefix (as seen in Stripe's own ids). */
const ID_LENGTHS: Record<string, number> = {
  prod: 14,
  cus: 14,
  clock: 24,
  bps: 24,
  req: 14,
  cs_test: 58,
};

/** A new id with Stripe's prefix, e.g. `price_1Q…` (24 characters) or `cs_test_a1…`. */
export function newId(prefix: string): string {
  const length = ID_LENGTHS[prefix] ?? 24;
  return `${prefix}_${prefix === "cs_test" ? `a1${randomId(length - 2)}` : randomId(length)}`;
}

const emptyState = (): State => ({
  version: 1,
  seq: 0,
  objects: Object.fromEntries(COLLECTIONS.map((c) => [c, {}])) as State["objects"],
  checkout: {},
  idempotency: {},
  deliveries: {},
  testing: { refundsFail: {}, refundFailures: {}, disputeDecisions: {}, declinesLater: {} },
});

export interface Store {
  keys: Keys;
  state: State;
  /** Schedules writing the state (atomically) to the data folder, within 20 ms; nothing without one. */
  save(): void;
  /** Writes pending changes now (the stack's close calls it). */
  flush(): void;
  get(collection: Collection, id: string): StripeObject | undefined;
  /** Adds or replaces an object; a new one gets the next place in the order. */
  put(collection: Collection, data: StripeObject): StripeObject;
  /** Every object of the collection, newest first (Stripe's list order). */
  all(collection: Collection): Stored[];
  /** Removes an object (a deleted test clock and what it held). */
  remove(collection: Collection, id: string): void;
  /** Makes a restricted key with these permissions, kept with the other keys. */
  restrictedKey(name: string, permissions: Permissions): RestrictedKey;
}

/** Opens the stand-in's store in `dataDir` (kept across restarts), or in memory without one. */
export function openStore(dataDir?: string): Store {
  const dir = dataDir ? join(dataDir, "stripe") : undefined;
  if (dir) makePrivateFolder(dir);
  const keysFile = dir ? join(dir, "keys.json") : undefined;
  const keys = loadKeys(keysFile);
  const stateFile = dir ? join(dir, "state.json") : undefined;
  const state: State = stateFile && existsSync(stateFile) ? readState(stateFile) : emptyState();

  let pending: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (pending) clearTimeout(pending);
    pending = undefined;
    if (!stateFile) return;
    const temporary = `${stateFile}.${process.pid}.tmp`;
    writePrivateFileSync(temporary, JSON.stringify(state));
    renameSync(temporary, stateFile);
  };
  return {
    keys,
    state,
    save() {
      if (!stateFile || pending) return;
      pending = setTimeout(() => {
        try {
          flush();
        } catch (error) {
          // The data folder went away under a stopped stack (a test's cleanup): nothing to keep.
          console.error(`Stripe stand-in: could not save its state: ${(error as Error).message}`);
        }
      }, 20);
    },
    flush,
    get(collection, id) {
      return state.objects[collection][id]?.data;
    },
    put(collection, data) {
      const kept = state.objects[collection][data.id];
      state.objects[collection][data.id] = { seq: kept?.seq ?? ++state.seq, data };
      return data;
    },
    all(collection) {
      return Object.values(state.objects[collection]).sort(newestFirst);
    },
    remove(collection, id) {
      delete state.objects[collection][id];
    },
    restrictedKey(name, permissions) {
      const made: RestrictedKey = { name, key: newRestrictedKey(), permissions: checkPermissions(permissions) };
      keys.restricted.push(made);
      if (keysFile) writePrivateFileSync(keysFile, JSON.stringify(keys, null, 2));
      return made;
    },
  };
}

/** Stripe lists newest first; objects of one second in the order they were made, last first. */
export const newestFirst = (a: Stored, b: Stored) => b.data.created - a.data.created || b.seq - a.seq;

function readState(file: string): State {
  const state = JSON.parse(readFileSync(file, "utf8")) as State;
  if (state.version !== 1)
    throw new Error(`${file}: unknown version ${String(state.version)}; delete it to start again`);
  for (const collection of COLLECTIONS) state.objects[collection] ??= {};
  state.testing ??= { refundsFail: {}, refundFailures: {}, disputeDecisions: {}, declinesLater: {} };
  state.testing.disputeDecisions ??= {};
  state.testing.declinesLater ??= {};
  return state;
}

/** A restricted key: `rk_test_` and as many characters as a secret key's. */
const newRestrictedKey = () => `rk_test_${randomId(99)}`;

/**
 * The stand-in's secret key, webhook signing secret and restricted keys: made once, then kept in
 * the data folder. A folder from before restricted keys gets DEPLOY.md's two added.
 */
function loadKeys(file: string | undefined): Keys {
  const kept = file && existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Partial<Keys>) : undefined;
  const keys: Keys = {
    // Stripe's test secret keys start with sk_test_; `stripe listen` prints a whsec_ of 64 hex digits.
    secretKey: kept?.secretKey ?? `sk_test_${randomId(99)}`,
    webhookSecret: kept?.webhookSecret ?? `whsec_${randomBytes(32).toString("hex")}`,
    restricted: kept?.restricted ?? [],
  };
  let changed = !kept;
  for (const wanted of Object.values(DEPLOY_KEYS)) {
    if (keys.restricted.some((k) => k.name === wanted.name)) continue;
    keys.restricted.push({ name: wanted.name, key: newRestrictedKey(), permissions: { ...wanted.permissions } });
    changed = true;
  }
  if (file && changed) writePrivateFileSync(file, JSON.stringify(keys, null, 2));
  return keys;
}
