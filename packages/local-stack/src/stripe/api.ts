/**
 * The Stripe API paths the product calls, answered on the stack's own origin (`/v1/...`) for the
 * real `stripe` library pointed at it (`host`/`port`/`protocol`, or STRIPE_API_URL): products,
 * prices (by lookup key), customers, Checkout Sessions (create, retrieve, list, expire, line
 * items), PaymentIntents, Charges, Refunds, Disputes (retrieve, list, update with evidence, close)
 * and Events. As Stripe: a secret key or a restricted key is required (`Authorization: Bearer
 * sk_…`/`rk_…`, or Basic with the key as user name), and a restricted key reaches only what its
 * permissions allow (./permissions.ts); every answer carries a `Request-Id`; a POST's
 * `Idempotency-Key` replays the first answer for the same parameters for 24 hours
 * (`Idempotent-Replayed: true`) and refuses different ones; errors have Stripe's types, codes,
 * params and messages; an unknown path is `Unrecognized request URL`. Dev and test only.
 */
import { createHash } from "node:crypto";
import { canonical } from "../http.ts";
import * as objects from "./objects.ts";
import { invalid, noSuch, type Params, parseForm, Reader, StripeError } from "./params.ts";
import type { Origin, Payments } from "./payments.ts";
import { missing, type Need, PERMISSION_OF, permissionDenied } from "./permissions.ts";
import { BILLING_ROUTES } from "./billing-api.ts";
import { accountIdOf } from "./receipts.ts";
import { type Collection, newId, type Store, type Stored, type StripeObject } from "./store.ts";

/** Idempotency keys are kept this long (Stripe: "keys are eligible to be removed after 24 hours"). */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface ApiContext {
  store: Store;
  payments: Payments;
  /** The stack's URL: where the hosted checkout page is. */
  url: string;
  checkoutPath: string;
  /** Where the customer portal's sessions are (`url` of a portal session). */
  portalPath: string;
  /** Where a restricted key's permissions are shown (the local dashboard), for a permission refusal. */
  keysUrl: string;
}

export interface Call {
  reader: Reader;
  ctx: ApiContext;
  origin: Origin;
  match: string[];
}

export type Handler = (call: Call) => StripeObject | objects.ListAnswer | { id: string; object: string; deleted: true };

export interface Route {
  method: "GET" | "POST" | "DELETE";
  pattern: RegExp;
  handle: Handler;
  /** The object it answers (a list's items), whose `expand[]` paths it follows. */
  object: Collection;
  list?: boolean;
}

/**
 * What a restricted key needs for a request: the route's object at Read (GET) or Write (POST),
 * and Read of every object its `expand[]` paths reach (`payment_intent.latest_charge` on a
 * session: PaymentIntents and Charges).
 */
function needsOf(route: Route, method: string, params: Params): Need[] {
  const needs: Need[] = [{ permission: PERMISSION_OF[route.object], access: method === "GET" ? "read" : "write" }];
  const paths = Array.isArray(params.expand) ? params.expand.filter((p): p is string => typeof p === "string") : [];
  for (const path of paths) {
    const parts = path.split(".");
    if (route.list && parts[0] === "data") parts.shift();
    let kind: string = route.object;
    for (const part of parts) {
      const next = objects.EXPANDABLE[kind]?.[part];
      if (!next) break;
      needs.push({ permission: PERMISSION_OF[next], access: "read" });
      kind = next;
    }
  }
  return needs;
}

const MISSING_KEY =
  "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.";

/** Stripe echoes a wrong key with all but its prefix and last four characters masked. */
export function maskKey(key: string): string {
  const prefix = /^(sk|rk|pk)_(test|live)_/.exec(key)?.[0] ?? "";
  const rest = key.slice(prefix.length);
  if (rest.length <= 4) return key;
  return `${prefix}${"*".repeat(rest.length - 4)}${rest.slice(-4)}`;
}

/** The key a request authenticates with: Bearer, or Basic with the key as user name (both Stripe's). */
function keyOf(request: Request): string | null {
  const header = request.headers.get("authorization")?.trim() ?? "";
  const bearer = /^bearer\s+(.+)$/i.exec(header);
  if (bearer) return bearer[1]!.trim();
  const basic = /^basic\s+(.+)$/i.exec(header);
  if (basic) return Buffer.from(basic[1]!, "base64").toString("utf8").split(":")[0]!;
  return null;
}

const unrecognized = (method: string, path: string) =>
  new StripeError(
    404,
    path.endsWith("/") || path.includes("//")
      ? `Unrecognized request URL (${method}: ${path}). If you are trying to list objects, remove the trailing slash. If you are trying to retrieve an object, make sure you passed a valid (non-empty) identifier in your code. Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`
      : `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
  );

/** Answers one `/v1/...` request. */
export async function handleApi(request: Request, ctx: ApiContext): Promise<Response> {
  const requestId = newId("req");
  const url = new URL(request.url);
  const idempotencyKey = request.method === "POST" ? request.headers.get("idempotency-key") : null;
  const headers: Record<string, string> = {
    "request-id": requestId,
    "stripe-version": objects.API_VERSION,
    "cache-control": "no-cache, no-store",
    ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
  };
  const answer = (status: number, body: string, extra: Record<string, string> = {}) =>
    new Response(body, { status, headers: { "content-type": "application/json", ...headers, ...extra } });
  const fail = (error: StripeError, extra: Record<string, string> = {}) =>
    answer(error.status, JSON.stringify(error.body(), null, 2), extra);

  const key = keyOf(request);
  if (!key) return fail(new StripeError(401, MISSING_KEY), { "www-authenticate": 'Basic realm="Stripe"' });
  const restricted = key.startsWith("rk_") ? ctx.store.keys.restricted.find((k) => k.key === key) : undefined;
  if (key !== ctx.store.keys.secretKey && !restricted) {
    return fail(new StripeError(401, `Invalid API Key provided: ${maskKey(key)}`), {
      "www-authenticate": 'Basic realm="Stripe"',
    });
  }

  const path = url.pathname;
  const method = request.method;
  const route = ROUTES.find((r) => r.method === method && r.pattern.test(path));
  if (!route) return fail(unrecognized(method, safeDecode(path)));
  const match = route.pattern.exec(path)!.slice(1).map(safeDecode);

  let params: Params;
  try {
    const body = method === "GET" ? "" : await request.text();
    params = { ...parseForm(url.search.slice(1)), ...parseForm(body) };
  } catch {
    return fail(invalid("Invalid request body."));
  }
  // A restricted key is refused what its permissions do not reach, before anything runs.
  if (restricted) {
    const lacking = missing(restricted, needsOf(route, method, params));
    if (lacking) return fail(permissionDenied(restricted, lacking, accountIdOf(ctx.store.keys.secretKey), ctx.keysUrl));
  }

  // Idempotency: the same key and parameters replay the first answer; other parameters are refused.
  const idempotency = ctx.store.state.idempotency;
  const nowMs = Date.now();
  for (const [k, record] of Object.entries(idempotency))
    if (nowMs - record.at > IDEMPOTENCY_TTL_MS) delete idempotency[k];
  const fingerprint = createHash("sha256")
    .update(`${method} ${path} ${canonical(params)}`)
    .digest("hex");
  if (idempotencyKey) {
    const earlier = idempotency[idempotencyKey];
    if (earlier) {
      if (earlier.fingerprint !== fingerprint) {
        return fail(
          new StripeError(
            400,
            `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            { type: "idempotency_error" },
          ),
        );
      }
      return answer(earlier.status, earlier.body, { "idempotent-replayed": "true", "original-request": requestId });
    }
  }

  try {
    ctx.payments.sweep();
    const reader = new Reader(params);
    const result = route.handle({ reader, ctx, origin: { id: requestId, idempotency_key: idempotencyKey }, match });
    const body = JSON.stringify(result, null, 2);
    if (idempotencyKey) idempotency[idempotencyKey] = { fingerprint, status: 200, body, at: nowMs };
    if (method !== "GET") ctx.store.save();
    return answer(200, body);
  } catch (error) {
    // Stripe keeps no idempotent result for a request refused before it ran (a validation error).
    if (error instanceof StripeError) return fail(error);
    console.error("Stripe stand-in failed:", error);
    const body = JSON.stringify(
      new StripeError(500, "An unknown error occurred", { type: "api_error" }).body(),
      null,
      2,
    );
    return answer(500, body);
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// ---------------------------------------------------------------- shared readers

/** `created`: an exact second, or `created[gt|gte|lt|lte]`. */
function createdFilter(reader: Reader): (object: StripeObject) => boolean {
  if (!reader.has("created")) return () => true;
  const range = reader.params.created;
  if (typeof range === "string") {
    const exact = reader.integer("created")!;
    return (o) => o.created === exact;
  }
  const bounds = reader.object("created")!;
  const gt = bounds.integer("gt");
  const gte = bounds.integer("gte");
  const lt = bounds.integer("lt");
  const lte = bounds.integer("lte");
  bounds.done();
  return (o) =>
    (gt === undefined || o.created > gt) &&
    (gte === undefined || o.created >= gte) &&
    (lt === undefined || o.created < lt) &&
    (lte === undefined || o.created <= lte);
}

/** A list endpoint: filter, page, expand. */
export function list(
  call: Call,
  collection: Collection,
  url: string,
  keep: (object: StripeObject) => boolean,
  objectName: string = collection,
) {
  const { reader, ctx } = call;
  const expandPaths = reader.expand();
  const created = createdFilter(reader);
  const items = ctx.store.all(collection).filter((s: Stored) => created(s.data) && keep(s.data));
  const answer = objects.page(items, reader, url, objects.cursorIn(ctx.store, collection, objectName));
  reader.done();
  objects.expand(answer, expandPaths, ctx.store);
  return answer;
}

/** A retrieve endpoint: the object, expanded. */
export function retrieve(call: Call, collection: Collection, objectName: string = collection) {
  const { reader, ctx, match } = call;
  const expandPaths = reader.expand();
  reader.done();
  const found = ctx.store.get(collection, match[0]!);
  if (!found) throw noSuch(objectName, match[0]!);
  const answer = structuredClone(found);
  objects.expand(answer, expandPaths, ctx.store);
  return answer;
}

/** An answer of a changed object, with the `expand[]` the request asked for. */
export function expanded(object: StripeObject, paths: string[], store: Store) {
  const answer = structuredClone(object);
  objects.expand(answer, paths, store);
  return answer;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
function email(value: string | null | undefined, param: string) {
  if (value && !EMAIL.test(value)) throw invalid(`Invalid email address: ${value}`, param, "email_invalid");
  return value;
}

/** The attributes of `before` that differ in `after`: an `*.updated` event's `previous_attributes`. */
function changed(before: StripeObject, after: StripeObject): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const key of Object.keys(after)) {
    if (key !== "updated" && JSON.stringify(before[key]) !== JSON.stringify(after[key])) previous[key] = before[key];
  }
  return previous;
}

// ---------------------------------------------------------------- products

function productFields(reader: Reader, target: StripeObject) {
  const name = reader.string("name");
  if (name) target.name = name;
  const description = reader.string("description", { nullable: true, max: 40_000 });
  if (description !== undefined) target.description = description;
  const active = reader.boolean("active");
  if (active !== undefined) target.active = active;
  const metadata = reader.metadata("metadata", target.metadata as Record<string, string>);
  if (metadata) target.metadata = metadata;
  const images = reader.strings("images", { max: 8 });
  if (images) target.images = images;
  const url = reader.string("url", { nullable: true });
  if (url !== undefined) target.url = url;
  const unitLabel = reader.string("unit_label", { nullable: true, max: 12 });
  if (unitLabel !== undefined) target.unit_label = unitLabel;
  const descriptor = reader.string("statement_descriptor", { nullable: true, max: 22 });
  if (descriptor !== undefined) target.statement_descriptor = descriptor;
  const shippable = reader.boolean("shippable");
  if (shippable !== undefined) target.shippable = shippable;
}

const createProduct: Handler = ({ reader, ctx, origin }) => {
  const expandPaths = reader.expand();
  const id = reader.string("id");
  const name = reader.string("name", { required: true })!;
  const made = objects.product({ id: id ?? undefined, name });
  productFields(reader, made);
  reader.done();
  if (id && ctx.store.get("product", id)) {
    throw invalid("Product already exists.", "id", "resource_already_exists");
  }
  ctx.store.put("product", made);
  ctx.payments.emit("product.created", made, origin);
  return expanded(made, expandPaths, ctx.store);
};

const updateProduct: Handler = ({ reader, ctx, origin, match }) => {
  const found = ctx.store.get("product", match[0]!);
  if (!found) throw noSuch("product", match[0]!);
  const expandPaths = reader.expand();
  const next = structuredClone(found);
  productFields(reader, next);
  const defaultPrice = reader.string("default_price", { nullable: true });
  if (defaultPrice !== undefined) {
    if (defaultPrice !== null) {
      const chosen = ctx.store.get("price", defaultPrice);
      if (!chosen) throw noSuch("price", defaultPrice, "default_price");
      if (chosen.product !== found.id) {
        throw invalid(`The price \`${defaultPrice}\` does not belong to this product.`, "default_price");
      }
    }
    next.default_price = defaultPrice;
  }
  reader.done();
  const previous = changed(found, next);
  if (Object.keys(previous).length > 0) {
    next.updated = objects.now();
    ctx.store.put("product", next);
    ctx.payments.emit("product.updated", next, origin, previous);
  }
  return expanded(next, expandPaths, ctx.store);
};

const listProducts: Handler = (call) => {
  const { reader } = call;
  const active = reader.boolean("active");
  const ids = reader.strings("ids");
  const shippable = reader.boolean("shippable");
  const url = reader.string("url");
  return list(
    call,
    "product",
    "/v1/products",
    (p) =>
      (active === undefined || p.active === active) &&
      (!ids || ids.includes(p.id)) &&
      (shippable === undefined || p.shippable === shippable) &&
      (url === undefined || p.url === url),
  );
};

// ---------------------------------------------------------------- prices

/** Takes `lookup_key` for `self`: refused when another price has it, unless transferred (Stripe's rule). */
function claimLookupKey(ctx: ApiContext, key: string, transfer: boolean, self: string | null, origin: Origin) {
  const holder = ctx.store.all("price").find((p) => p.data.lookup_key === key && p.data.id !== self);
  if (!holder) return;
  if (!transfer) throw invalid(`A price (\`${holder.data.id}\`) already uses that lookup key.`, "lookup_key");
  holder.data.lookup_key = null;
  ctx.payments.emit("price.updated", holder.data, origin, { lookup_key: key });
}

const createPrice: Handler = ({ reader, ctx, origin }) => {
  const expandPaths = reader.expand();
  const currency = reader.string("currency", { required: true })!.toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) throw invalid(`Invalid currency: ${currency}`, "currency");
  const productId = reader.string("product");
  const productData = reader.object("product_data");
  const unitAmount = reader.integer("unit_amount", { min: 0 });
  const decimal = reader.string("unit_amount_decimal");
  const lookupKey = reader.string("lookup_key", { max: 200 });
  const transfer = reader.boolean("transfer_lookup_key") ?? false;
  const metadata = reader.metadata() ?? {};
  const nickname = reader.string("nickname");
  const active = reader.boolean("active");
  const taxBehavior = reader.oneOf("tax_behavior", ["exclusive", "inclusive", "unspecified"]);
  const billingScheme = reader.oneOf("billing_scheme", ["per_unit", "tiered"]);
  if (billingScheme === "tiered") {
    throw invalid("The local Stripe stand-in supports only per_unit prices.", "billing_scheme");
  }
  let product: StripeObject | undefined;
  if (productId !== undefined && productData) {
    throw invalid("You may only specify one of these parameters: product, product_data.", "product");
  }
  if (productData) {
    const name = productData.string("name", { required: true })!;
    const made = objects.product({ id: productData.string("id") ?? undefined, name });
    const productActive = productData.boolean("active");
    if (productActive !== undefined) made.active = productActive;
    made.metadata = productData.metadata() ?? {};
    made.statement_descriptor = productData.string("statement_descriptor") ?? null;
    made.unit_label = productData.string("unit_label") ?? null;
    productData.done();
    product = made;
  } else if (productId !== undefined) {
    product = ctx.store.get("product", productId!);
    if (!product) throw noSuch("product", productId!, "product");
  } else {
    throw invalid("You must specify either `product` or `product_data` when creating a price.", "product");
  }
  let amount = unitAmount;
  if (amount === undefined && decimal !== undefined) {
    if (!/^\d+(\.0+)?$/.test(decimal!)) {
      throw invalid("The local Stripe stand-in supports only whole-cent amounts.", "unit_amount_decimal");
    }
    amount = Number.parseInt(decimal!, 10);
  } else if (amount !== undefined && decimal !== undefined) {
    throw invalid("You may only specify one of these parameters: unit_amount, unit_amount_decimal.", "unit_amount");
  }
  if (amount === undefined) throw invalid("Missing required param: unit_amount.", "unit_amount", "parameter_missing");
  const recurring = readRecurring(reader);
  reader.done();
  if (lookupKey) claimLookupKey(ctx, lookupKey, transfer, null, origin);
  if (productData) {
    ctx.store.put("product", product);
    ctx.payments.emit("product.created", product, origin);
  }
  const made = objects.price({
    product: product.id,
    currency,
    unitAmount: amount,
    lookupKey: lookupKey ?? null,
    nickname: nickname ?? null,
    metadata,
    active,
    taxBehavior,
    recurring,
  });
  ctx.store.put("price", made);
  ctx.payments.emit("price.created", made, origin);
  return expanded(made, expandPaths, ctx.store);
};

const updatePrice: Handler = ({ reader, ctx, origin, match }) => {
  const found = ctx.store.get("price", match[0]!);
  if (!found) throw noSuch("price", match[0]!);
  const expandPaths = reader.expand();
  const next = structuredClone(found);
  const active = reader.boolean("active");
  if (active !== undefined) next.active = active;
  const lookupKey = reader.string("lookup_key", { nullable: true, max: 200 });
  const transfer = reader.boolean("transfer_lookup_key") ?? false;
  const metadata = reader.metadata("metadata", found.metadata as Record<string, string>);
  if (metadata) next.metadata = metadata;
  const nickname = reader.string("nickname", { nullable: true });
  if (nickname !== undefined) next.nickname = nickname;
  const taxBehavior = reader.oneOf("tax_behavior", ["exclusive", "inclusive", "unspecified"]);
  if (taxBehavior) next.tax_behavior = taxBehavior;
  reader.done();
  if (lookupKey !== undefined) {
    if (lookupKey) claimLookupKey(ctx, lookupKey, transfer, found.id, origin);
    next.lookup_key = lookupKey;
  }
  const previous = changed(found, next);
  if (Object.keys(previous).length > 0) {
    ctx.store.put("price", next);
    ctx.payments.emit("price.updated", next, origin, previous);
  }
  return expanded(next, expandPaths, ctx.store);
};

const listPrices: Handler = (call) => {
  const { reader } = call;
  const active = reader.boolean("active");
  const currency = reader.string("currency")?.toLowerCase();
  const product = reader.string("product");
  const lookupKeys = reader.strings("lookup_keys", { max: 10 });
  const type = reader.oneOf("type", ["one_time", "recurring"]);
  return list(
    call,
    "price",
    "/v1/prices",
    (p) =>
      (active === undefined || p.active === active) &&
      (!currency || p.currency === currency) &&
      (!product || p.product === product) &&
      (!lookupKeys || lookupKeys.includes(p.lookup_key as string)) &&
      (!type || p.type === type),
  );
};

// ---------------------------------------------------------------- customers

function customerFields(reader: Reader, target: StripeObject) {
  const address = email(reader.string("email", { nullable: true, max: 512 }), "email");
  if (address !== undefined) target.email = address;
  for (const field of ["name", "description", "phone"] as const) {
    const value = reader.string(field, { nullable: true, max: field === "description" ? 350 : 256 });
    if (value !== undefined) target[field] = value;
  }
  const metadata = reader.metadata("metadata", target.metadata as Record<string, string>);
  if (metadata) target.metadata = metadata;
}

const createCustomer: Handler = ({ reader, ctx, origin }) => {
  const expandPaths = reader.expand();
  const clockId = reader.string("test_clock");
  const clock = clockId ? ctx.store.get("test_helpers.test_clock", clockId) : undefined;
  if (clockId && !clock) throw noSuch("test_helpers.test_clock", clockId, "test_clock");
  const made = objects.customer({
    testClock: clock ? { id: clock.id, frozenTime: clock.frozen_time as number } : null,
  });
  customerFields(reader, made);
  reader.done();
  ctx.store.put("customer", made);
  ctx.payments.emit("customer.created", made, origin, undefined, made.created);
  return expanded(made, expandPaths, ctx.store);
};

const updateCustomer: Handler = ({ reader, ctx, origin, match }) => {
  const found = ctx.store.get("customer", match[0]!);
  if (!found) throw noSuch("customer", match[0]!);
  const expandPaths = reader.expand();
  const next = structuredClone(found);
  customerFields(reader, next);
  reader.done();
  const previous = changed(found, next);
  if (Object.keys(previous).length > 0) {
    ctx.store.put("customer", next);
    ctx.payments.emit("customer.updated", next, origin, previous);
  }
  return expanded(next, expandPaths, ctx.store);
};

const listCustomers: Handler = (call) => {
  // Stripe: "A case-sensitive filter on the list based on the customer's email field."
  const address = call.reader.string("email", { max: 512 });
  return list(call, "customer", "/v1/customers", (c) => address === undefined || c.email === address);
};

// ---------------------------------------------------------------- checkout sessions

/** Stripe accepts http(s) URLs; `{CHECKOUT_SESSION_ID}` is a template Stripe fills in on redirect. */
function checkUrl(value: string, param: string): string {
  try {
    const parsed = new URL(value.replaceAll("{CHECKOUT_SESSION_ID}", "cs"));
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("scheme");
  } catch {
    throw invalid("Not a valid URL", param, "url_invalid");
  }
  return value;
}

const MIN_EXPIRY_S = 30 * 60;
const MAX_EXPIRY_S = 24 * 60 * 60;

/** Stripe's billing intervals, and the longest a price's may be ("Maximum of three years interval allowed"). */
const INTERVALS = ["day", "month", "week", "year"] as const;
const MAX_INTERVAL_COUNT: Record<(typeof INTERVALS)[number], number> = { day: 1095, week: 156, month: 36, year: 3 };

/** `recurring[...]` of a price: its interval and count, as Stripe checks them. */
function readRecurring(reader: Reader): { interval: string; intervalCount: number } | undefined {
  const recurring = reader.object("recurring");
  if (!recurring) return undefined;
  const interval = recurring.oneOf("interval", INTERVALS, { required: true })!;
  const intervalCount = recurring.integer("interval_count", { min: 1 }) ?? 1;
  const usageType = recurring.oneOf("usage_type", ["licensed", "metered"]);
  if (usageType === "metered") {
    throw invalid("The local Stripe stand-in supports only licensed recurring prices.", recurring.path("usage_type"));
  }
  recurring.done();
  if (intervalCount > MAX_INTERVAL_COUNT[interval]) {
    throw invalid(
      "Maximum of three years interval allowed (3 years, 36 months, or 156 weeks).",
      recurring.path("interval_count"),
    );
  }
  return { interval, intervalCount };
}

/**
 * A line item's `price_data`: a new price made for the session, with its product. Stripe makes it
 * as a Price of its own that the line item and the subscription show (the stand-in keeps it,
 * inactive so it is not offered again, and sends no event for it: its reading of Stripe's).
 */
function inlinePrice(data: Reader, ctx: ApiContext): StripeObject {
  const currency = data.string("currency", { required: true })!.toLowerCase();
  const productId = data.string("product");
  if (data.has("product_data")) {
    throw invalid("The local Stripe stand-in takes `price_data` with a `product` only.", data.path("product_data"));
  }
  if (productId === undefined) {
    throw invalid("You must specify either `product` or `product_data` when creating a price.", data.path("product"));
  }
  const unitAmount = data.integer("unit_amount", { min: 0 });
  if (unitAmount === undefined) {
    throw invalid(
      `Missing required param: ${data.path("unit_amount")}.`,
      data.path("unit_amount"),
      "parameter_missing",
    );
  }
  const recurring = readRecurring(data);
  const taxBehavior = data.oneOf("tax_behavior", ["exclusive", "inclusive", "unspecified"]);
  data.done();
  const product = ctx.store.get("product", productId!);
  if (!product) throw noSuch("product", productId!, data.path("product"));
  const made = objects.price({ product: product.id, currency, unitAmount, recurring, taxBehavior, active: false });
  return made;
}

/** `custom_text[...]`: each a `{ message }` shown on the page (Session `custom_text`). */
function readCustomText(reader: Reader): Record<string, { message: string } | null> | undefined {
  const text = reader.object("custom_text");
  if (!text) return undefined;
  const out: Record<string, { message: string } | null> = {};
  for (const field of ["after_submit", "shipping_address", "submit", "terms_of_service_acceptance"]) {
    const entry = text.object(field);
    if (!entry) {
      out[field] = null;
      continue;
    }
    out[field] = { message: entry.string("message", { required: true, max: 1200 })! };
    entry.done();
  }
  text.done();
  return out;
}

const createSession: Handler = ({ reader, ctx }) => {
  const expandPaths = reader.expand();
  const mode = reader.oneOf("mode", ["payment", "setup", "subscription"]) ?? "payment";
  if (mode === "setup") {
    throw invalid("The local Stripe stand-in supports only mode=payment and mode=subscription.", "mode");
  }
  const uiMode = reader.oneOf("ui_mode", ["elements", "embedded_page", "form", "hosted_page"]);
  if (uiMode && uiMode !== "hosted_page") {
    throw invalid("The local Stripe stand-in supports only ui_mode=hosted_page.", "ui_mode");
  }
  const customerId = reader.string("customer");
  const customerEmail = reader.string("customer_email");
  if (customerId !== undefined && customerEmail !== undefined) {
    throw invalid("You may only specify one of these parameters: customer, customer_email.", "customer_email");
  }
  const customerCreation = reader.oneOf("customer_creation", ["always", "if_required"]);
  // SessionCreateParams `customer_creation`: "Can only be set in `payment` and `setup` mode"
  // (subscription mode always makes one). The message is the stand-in's.
  if (customerCreation && mode === "subscription") {
    throw invalid("`customer_creation` can only be used in `payment` or `setup` mode.", "customer_creation");
  }
  if (customerCreation && customerId !== undefined) {
    throw invalid("You may only specify one of these parameters: customer, customer_creation.", "customer_creation");
  }
  const methodTypes = reader.strings("payment_method_types");
  for (const [i, type] of (methodTypes ?? []).entries()) {
    if (!objects.PAYMENT_METHOD_TYPES.includes(type as (typeof objects.PAYMENT_METHOD_TYPES)[number])) {
      throw invalid(
        `The local Stripe stand-in offers only the payment method types card and us_bank_account, not ${type}.`,
        `payment_method_types[${i}]`,
      );
    }
    if (mode === "subscription" && type !== "card") {
      throw invalid("The local Stripe stand-in takes subscriptions by card only.", `payment_method_types[${i}]`);
    }
  }
  const items = reader.list("line_items", { max: 100 });
  if (!items || items.length === 0) {
    throw invalid("Missing required param: line_items.", "line_items", "parameter_missing");
  }
  const lines: { price: StripeObject; quantity: number; inline: boolean }[] = [];
  items.forEach((item, i) => {
    const prefix = `line_items[${i}]`;
    if (typeof item !== "object" || Array.isArray(item)) throw invalid("Invalid object", prefix);
    const line = new Reader(item, prefix);
    if (!line.has("price") && !line.has("price_data")) {
      throw invalid("You must provide one of `price` or `price_data` for each line item when using prices.", prefix);
    }
    if (line.has("price") && line.has("price_data")) {
      throw invalid("You may only specify one of these parameters: price, price_data.", `${prefix}[price]`);
    }
    const data = line.object("price_data");
    const priceId = data ? undefined : line.string("price", { required: true })!;
    if (!line.has("quantity"))
      throw invalid(`Quantity is required. Add \`quantity\` to \`${prefix}\``, `${prefix}[quantity]`);
    const quantity = line.integer("quantity", { min: 1, max: 999_999 })!;
    const found = data ? inlinePrice(data, ctx) : ctx.store.get("price", priceId!);
    line.done();
    if (!found) throw noSuch("price", priceId!, `${prefix}[price]`);
    if (!data && !found.active) {
      throw invalid("The price specified is inactive. This field only accepts active prices.", `${prefix}[price]`);
    }
    // An active price of an archived product cannot be sold either (Stripe answers this, without a code).
    if (ctx.store.get("product", found.product as string)?.active === false) {
      throw invalid(
        `Price \`${found.id}\` is not available to be purchased because its product is not active.`,
        data ? `${prefix}[price_data][product]` : `${prefix}[price]`,
      );
    }
    lines.push({ price: found, quantity, inline: Boolean(data) });
  });
  const currency = lines[0]!.price.currency as string;
  if (lines.some((l) => l.price.currency !== currency)) {
    throw invalid("All prices on a Checkout Session must have the same currency.", "line_items");
  }
  checkModeOfPrices(mode, lines);
  const successUrl = checkUrl(reader.string("success_url", { required: true, max: 5000 })!, "success_url");
  const cancelRaw = reader.string("cancel_url", { max: 5000 });
  const cancelUrl = cancelRaw ? checkUrl(cancelRaw, "cancel_url") : null;
  const clientReferenceId = reader.string("client_reference_id", { max: 200 }) ?? null;
  const metadata = reader.metadata() ?? {};
  const intentData = reader.object("payment_intent_data");
  if (intentData && mode === "subscription") {
    throw invalid("You can not pass `payment_intent_data` in `subscription` mode.", "payment_intent_data");
  }
  const intentMetadata = intentData?.metadata() ?? {};
  const intentDescription = intentData?.string("description", { max: 1000 }) ?? null;
  const receiptEmail = intentData?.string("receipt_email") ?? null;
  const setupFutureUsage = intentData?.oneOf("setup_future_usage", ["off_session", "on_session"]) ?? null;
  intentData?.done();
  const subscriptionData = reader.object("subscription_data");
  if (subscriptionData && mode === "payment") {
    throw invalid("You can not pass `subscription_data` in `payment` mode.", "subscription_data");
  }
  const subscriptionMetadata = subscriptionData?.metadata() ?? {};
  const subscriptionDescription = subscriptionData?.string("description", { max: 500 }) ?? null;
  subscriptionData?.done();
  const customText = readCustomText(reader);
  const created = objects.now();
  const expiresAt = reader.integer("expires_at") ?? created + MAX_EXPIRY_S;
  reader.done();
  if (expiresAt > created + MAX_EXPIRY_S) {
    throw invalid(
      "The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.",
      "expires_at",
    );
  }
  if (expiresAt < created + MIN_EXPIRY_S) {
    throw invalid(
      "The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.",
      "expires_at",
    );
  }
  if (customerId !== undefined && !ctx.store.get("customer", customerId!)) {
    throw noSuch("customer", customerId!, "customer");
  }
  email(customerEmail, "customer_email");
  email(receiptEmail, "payment_intent_data[receipt_email]");
  const lineItems = lines.map(({ price, quantity }) => {
    const product = ctx.store.get("product", price.product as string);
    return objects.lineItem(structuredClone(price), (product?.name as string | undefined) ?? "", quantity);
  });
  const amount = lineItems.reduce((sum, item) => sum + (item.amount_total as number), 0);
  if (amount < 50 && currency === "usd") {
    throw invalid("The Checkout Session's total amount due must add up to at least $0.50 usd", "line_items");
  }
  // Made only now that nothing is refused: a refused request changes nothing.
  for (const line of lines) if (line.inline) ctx.store.put("price", line.price);
  const id = newId("cs_test");
  const session = objects.checkoutSession({
    id,
    url: `${ctx.url}${ctx.checkoutPath}/${id}`,
    amount,
    currency,
    customer: customerId ?? null,
    customerEmail: customerEmail ?? null,
    customerCreation: customerId || mode === "subscription" ? null : (customerCreation ?? "if_required"),
    clientReferenceId,
    successUrl,
    cancelUrl,
    metadata,
    expiresAt,
    created,
    mode,
  });
  if (customText) session.custom_text = customText;
  if (mode === "subscription") {
    // Subscriptions always collect a payment method (Session `payment_method_collection`, default `always`).
    session.payment_method_collection = "always";
    session.payment_method_types = ["card"];
    session.payment_method_options = { card: { request_three_d_secure: "automatic" } };
  }
  if (methodTypes && methodTypes.length > 0) session.payment_method_types = [...new Set(methodTypes)];
  ctx.store.put("checkout.session", session);
  ctx.store.state.checkout[id] = {
    lineItems,
    paymentIntentData: { metadata: intentMetadata, description: intentDescription, receiptEmail },
    setupFutureUsage,
    ...(mode === "subscription"
      ? { subscriptionData: { metadata: subscriptionMetadata, description: subscriptionDescription } }
      : {}),
  };
  // Stripe sends no event when a Checkout Session is made.
  return expanded(session, expandPaths, ctx.store);
};

/**
 * Which prices a mode takes: payment mode one-time prices only, subscription mode at least one
 * recurring price, all of one interval (Stripe's refusals, as its API answers them). The stand-in
 * bills no one-time price in subscription mode (Stripe adds them to the first invoice).
 */
function checkModeOfPrices(mode: string, lines: { price: StripeObject }[]) {
  const recurring = lines.filter((l) => l.price.type === "recurring");
  if (mode === "payment" && recurring.length > 0) {
    throw invalid(
      "You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.",
      "line_items",
    );
  }
  if (mode !== "subscription") return;
  if (recurring.length === 0) {
    throw invalid(
      "You must provide at least one recurring price in `subscription` mode when using prices.",
      "line_items",
    );
  }
  if (recurring.length < lines.length) {
    throw invalid("The local Stripe stand-in takes only recurring prices in subscription mode.", "line_items");
  }
  const interval = (p: StripeObject) =>
    JSON.stringify([(p.recurring as Recurring).interval, (p.recurring as Recurring).interval_count]);
  if (recurring.some((l) => interval(l.price) !== interval(recurring[0]!.price))) {
    // The stand-in's words: Stripe refuses prices of different intervals on one subscription.
    throw invalid("Checkout does not support multiple prices with different billing intervals.", "line_items");
  }
}

interface Recurring {
  interval: string;
  interval_count: number;
}

const listSessions: Handler = (call) => {
  const { reader } = call;
  const status = reader.oneOf("status", ["complete", "expired", "open"]);
  const customer = reader.string("customer");
  const paymentIntent = reader.string("payment_intent");
  const details = reader.object("customer_details");
  const detailsEmail = details?.string("email", { required: true });
  details?.done();
  return list(
    call,
    "checkout.session",
    "/v1/checkout/sessions",
    (s) =>
      (!status || s.status === status) &&
      (!customer || s.customer === customer) &&
      (!paymentIntent || s.payment_intent === paymentIntent) &&
      (!detailsEmail || (s.customer_details as { email?: string } | null)?.email === detailsEmail),
  );
};

const expireSession: Handler = ({ reader, ctx, origin, match }) => {
  const expandPaths = reader.expand();
  reader.done();
  const session = ctx.payments.expire(match[0]!, origin);
  return expanded(session, expandPaths, ctx.store);
};

const sessionLineItems: Handler = ({ reader, ctx, match }) => {
  if (!ctx.store.get("checkout.session", match[0]!)) throw noSuch("checkout.session", match[0]!);
  const expandPaths = reader.expand();
  const { answer } = objects.lineItemList(match[0]!, ctx.store, 10, reader);
  reader.done();
  objects.expand(answer, expandPaths, ctx.store);
  return answer;
};

// ---------------------------------------------------------------- refunds and events

const createRefund: Handler = ({ reader, ctx, origin }) => {
  const expandPaths = reader.expand();
  const charge = reader.string("charge");
  const paymentIntent = reader.string("payment_intent");
  const amount = reader.integer("amount", { min: 1 });
  const reason = reader.oneOf("reason", ["duplicate", "fraudulent", "requested_by_customer"]);
  const metadata = reader.metadata() ?? {};
  reader.done();
  if (charge !== undefined && paymentIntent !== undefined) {
    throw invalid("You may only specify one of these parameters: charge, payment_intent.", "charge");
  }
  const made = ctx.payments.refund(
    { charge: charge ?? undefined, paymentIntent: paymentIntent ?? undefined },
    { amount, reason: reason ?? null, metadata },
    origin,
  );
  return expanded(made, expandPaths, ctx.store);
};

// ---------------------------------------------------------------- disputes

/** Evidence fields Stripe documents as "Has a maximum character count of 20,000" (Dispute update). */
const LONG_EVIDENCE = new Set([
  "access_activity_log",
  "cancellation_policy_disclosure",
  "cancellation_rebuttal",
  "duplicate_charge_explanation",
  "product_description",
  "refund_policy_disclosure",
  "refund_refusal_explanation",
  "uncategorized_text",
]);

/** "The combined character count of all fields is limited to 150,000" (Dispute update, `evidence`). */
const EVIDENCE_LIMIT = 150_000;

/** `evidence[...]`: the text fields given; what the stand-in cannot take is refused, naming it. */
function readEvidence(reader: Reader, current: Record<string, unknown>): Record<string, string> | undefined {
  const evidence = reader.object("evidence");
  if (!evidence) return undefined;
  const given: Record<string, string> = {};
  for (const field of objects.EVIDENCE_TEXT_FIELDS) {
    const value = evidence.string(field, LONG_EVIDENCE.has(field) ? { max: 20_000 } : {});
    if (value) given[field] = value;
  }
  for (const field of [...objects.EVIDENCE_FILE_FIELDS, "appeal", "enhanced_evidence"]) {
    if (!evidence.has(field)) continue;
    throw invalid(
      field === "appeal" || field === "enhanced_evidence"
        ? `The local Stripe stand-in does not take ${evidence.path(field)}.`
        : `The local Stripe stand-in has no file uploads: ${evidence.path(field)} takes the id of one.`,
      evidence.path(field),
    );
  }
  evidence.done();
  const texts = { ...current, ...given };
  const total = objects.EVIDENCE_TEXT_FIELDS.reduce((sum, field) => sum + String(texts[field] ?? "").length, 0);
  if (total > EVIDENCE_LIMIT) {
    // The stand-in's words: Stripe's message for this limit is not documented.
    throw invalid(
      `The evidence's text fields have ${total} characters together; Stripe takes at most 150,000.`,
      "evidence",
    );
  }
  return given;
}

const listDisputes: Handler = (call) => {
  const charge = call.reader.string("charge");
  const paymentIntent = call.reader.string("payment_intent");
  return list(
    call,
    "dispute",
    "/v1/disputes",
    (d) => (!charge || d.charge === charge) && (!paymentIntent || d.payment_intent === paymentIntent),
  );
};

const updateDispute: Handler = ({ reader, ctx, origin, match }) => {
  const found = ctx.store.get("dispute", match[0]!);
  if (!found) throw noSuch("dispute", match[0]!);
  const expandPaths = reader.expand();
  const evidence = readEvidence(reader, found.evidence as Record<string, unknown>);
  const metadata = reader.metadata("metadata", found.metadata as Record<string, string>);
  const submit = reader.boolean("submit");
  const intendedSubmissionMethod = reader.oneOf("intended_submission_method", [
    "manual",
    "prefer_manual",
    "prefer_smart_disputes",
    "smart_disputes",
  ]);
  reader.done();
  const next = ctx.payments.disputes.update(found.id, { evidence, metadata, submit, intendedSubmissionMethod }, origin);
  return expanded(next, expandPaths, ctx.store);
};

const closeDispute: Handler = ({ reader, ctx, origin, match }) => {
  const expandPaths = reader.expand();
  reader.done();
  return expanded(ctx.payments.disputes.close(match[0]!, origin), expandPaths, ctx.store);
};

const listEvents: Handler = (call) => {
  const { reader, ctx } = call;
  const type = reader.string("type");
  const types = reader.strings("types", { max: 20 });
  if (type !== undefined && types !== undefined) {
    throw invalid("You may only specify one of these parameters: type, types.", "type");
  }
  const deliverySuccess = reader.boolean("delivery_success");
  // Stripe's `type` takes `*` as a wildcard: `checkout.session.*`.
  const matches = (pattern: string, value: string) =>
    new RegExp(
      `^${pattern
        .split("*")
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
    ).test(value);
  return list(
    call,
    "event",
    "/v1/events",
    (e) =>
      (type === undefined || matches(type!, e.type as string)) &&
      (types === undefined || types.includes(e.type as string)) &&
      (deliverySuccess === undefined || (ctx.store.state.deliveries[e.id]?.status === "succeeded") === deliverySuccess),
  );
};

const ID = "([^/]+)";
const ROUTES: Route[] = [
  { method: "POST", pattern: /^\/v1\/products$/, handle: createProduct, object: "product" },
  { method: "GET", pattern: /^\/v1\/products$/, handle: listProducts, object: "product", list: true },
  {
    method: "GET",
    pattern: new RegExp(`^/v1/products/${ID}$`),
    handle: (c) => retrieve(c, "product"),
    object: "product",
  },
  { method: "POST", pattern: new RegExp(`^/v1/products/${ID}$`), handle: updateProduct, object: "product" },
  { method: "POST", pattern: /^\/v1\/prices$/, handle: createPrice, object: "price" },
  { method: "GET", pattern: /^\/v1\/prices$/, handle: listPrices, object: "price", list: true },
  { method: "GET", pattern: new RegExp(`^/v1/prices/${ID}$`), handle: (c) => retrieve(c, "price"), object: "price" },
  { method: "POST", pattern: new RegExp(`^/v1/prices/${ID}$`), handle: updatePrice, object: "price" },
  { method: "POST", pattern: /^\/v1\/customers$/, handle: createCustomer, object: "customer" },
  { method: "GET", pattern: /^\/v1\/customers$/, handle: listCustomers, object: "customer", list: true },
  {
    method: "GET",
    pattern: new RegExp(`^/v1/customers/${ID}$`),
    handle: (c) => retrieve(c, "customer"),
    object: "customer",
  },
  { method: "POST", pattern: new RegExp(`^/v1/customers/${ID}$`), handle: updateCustomer, object: "customer" },
  { method: "POST", pattern: /^\/v1\/checkout\/sessions$/, handle: createSession, object: "checkout.session" },
  {
    method: "GET",
    pattern: /^\/v1\/checkout\/sessions$/,
    handle: listSessions,
    object: "checkout.session",
    list: true,
  },
  {
    method: "GET",
    pattern: new RegExp(`^/v1/checkout/sessions/${ID}$`),
    handle: (c) => retrieve(c, "checkout.session"),
    object: "checkout.session",
  },
  {
    method: "POST",
    pattern: new RegExp(`^/v1/checkout/sessions/${ID}/expire$`),
    handle: expireSession,
    object: "checkout.session",
  },
  {
    method: "GET",
    pattern: new RegExp(`^/v1/checkout/sessions/${ID}/line_items$`),
    handle: sessionLineItems,
    object: "checkout.session",
    list: true,
  },
  {
    method: "GET",
    pattern: new RegExp(`^/v1/payment_intents/${ID}$`),
    handle: (c) => retrieve(c, "payment_intent"),
    object: "payment_intent",
  },
  { method: "GET", pattern: new RegExp(`^/v1/charges/${ID}$`), handle: (c) => retrieve(c, "charge"), object: "charge" },
  { method: "POST", pattern: /^\/v1\/refunds$/, handle: createRefund, object: "refund" },
  { method: "GET", pattern: new RegExp(`^/v1/refunds/${ID}$`), handle: (c) => retrieve(c, "refund"), object: "refund" },
  { method: "GET", pattern: /^\/v1\/disputes$/, handle: listDisputes, object: "dispute", list: true },
  {
    method: "GET",
    pattern: new RegExp(`^/v1/disputes/${ID}$`),
    handle: (c) => retrieve(c, "dispute"),
    object: "dispute",
  },
  { method: "POST", pattern: new RegExp(`^/v1/disputes/${ID}$`), handle: updateDispute, object: "dispute" },
  { method: "POST", pattern: new RegExp(`^/v1/disputes/${ID}/close$`), handle: closeDispute, object: "dispute" },
  { method: "GET", pattern: /^\/v1\/events$/, handle: listEvents, object: "event", list: true },
  { method: "GET", pattern: new RegExp(`^/v1/events/${ID}$`), handle: (c) => retrieve(c, "event"), object: "event" },
  ...BILLING_ROUTES,
];
