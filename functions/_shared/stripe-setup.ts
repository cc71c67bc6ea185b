/**
 * Makes a Stripe account sell the catalogue (functions/_shared/catalogue.ts): one product per
 * program (id = the price's lookup key) and one active price per lookup key with the catalogue's
 * amount. Idempotent: what already matches is left alone, so a second run changes nothing. A
 * changed amount gets a new price that takes over the lookup key (Stripe prices are immutable).
 *
 * A price change reaches production in two steps, so no buyer is refused in between: this first
 * run leaves the old price active, because the deployed functions still carry the old catalogue
 * and sell the product's active price of their amount (stripe-checkout's `priceOf`); once the
 * functions with the new catalogue are deployed, a run with `archive` (`npm run stripe:setup --
 * --archive`) archives every other active price of the programs. The deploy workflow
 * (.github/workflows/ci.yml) runs the three in that order. Used by `npm run stripe:setup` and by
 * the local stack for its stand-in (which archives at once: its functions are always current).
 *
 * The coached offers (`setupOffers`, docs/coached-offers.md) are sold the same way, each as its own
 * product (`offerStripeKeys`): its price in full, a monthly price for each plan of equal payments,
 * and the membership's monthly price, each by its lookup key.
 */
import type { CatalogueOffer, CatalogueProduct } from "./catalogue.ts";
import { offerStripeKeys } from "./offers.ts";
import type { Stripe } from "./stripe.ts";

export interface SetupChange {
  /** The program's checkout key, or the offer's key in content. */
  key: string;
  change: "created product" | "updated product" | "created price" | "replaced price" | "archived price";
  id: string;
}

/** A Stripe product as the catalogue wants it, and the prices it sells by lookup key. */
interface Wanted {
  key: string;
  product: { id: string; name: string; description: string; metadata: Record<string, string> };
  prices: {
    lookupKey: string;
    amount: number;
    currency: string;
    /** Monthly for a recurring price; null for a one-time price. */
    interval: "month" | null;
    metadata: Record<string, string>;
  }[];
}

async function ensureProduct(stripe: Stripe, wanted: Wanted, changes: SetupChange[]): Promise<string> {
  const { id, ...fields } = wanted.product;
  let existing: Stripe.Product | null = null;
  try {
    existing = await stripe.products.retrieve(id);
  } catch (error) {
    if ((error as { code?: string }).code !== "resource_missing") throw error;
  }
  if (!existing) {
    const created = await stripe.products.create({ id, ...fields });
    changes.push({ key: wanted.key, change: "created product", id: created.id });
    return created.id;
  }
  const sameMetadata = Object.entries(fields.metadata).every(([name, value]) => existing.metadata?.[name] === value);
  if (
    existing.name !== fields.name ||
    existing.description !== fields.description ||
    !sameMetadata ||
    !existing.active
  ) {
    await stripe.products.update(existing.id, { ...fields, active: true });
    changes.push({ key: wanted.key, change: "updated product", id: existing.id });
  }
  return existing.id;
}

/** The price `lookupKey` names when it is `price` on `productId` already; otherwise a new one that takes the key over. */
async function ensurePrice(
  stripe: Stripe,
  key: string,
  productId: string,
  price: Wanted["prices"][number],
  changes: SetupChange[],
): Promise<string> {
  const { data } = await stripe.prices.list({ lookup_keys: [price.lookupKey], limit: 1 });
  const current = data[0];
  const matches =
    current &&
    current.active &&
    current.unit_amount === price.amount &&
    current.currency === price.currency &&
    (price.interval
      ? current.type === "recurring" &&
        current.recurring?.interval === price.interval &&
        current.recurring.interval_count === 1
      : current.type === "one_time") &&
    (typeof current.product === "string" ? current.product : current.product.id) === productId;
  if (matches) return current.id;
  // Prices are immutable: a new one takes the lookup key; the one before stays active (kept).
  const created = await stripe.prices.create({
    product: productId,
    unit_amount: price.amount,
    currency: price.currency,
    lookup_key: price.lookupKey,
    transfer_lookup_key: true,
    metadata: price.metadata,
    ...(price.interval ? { recurring: { interval: price.interval } } : {}),
  });
  changes.push({ key, change: current ? "replaced price" : "created price", id: created.id });
  return created.id;
}

export interface SetupOptions {
  /** Archive the products' active prices other than the catalogue's (after the functions' deploy). */
  archive?: boolean;
}

async function setup(stripe: Stripe, wanted: readonly Wanted[], archive: boolean): Promise<SetupChange[]> {
  const changes: SetupChange[] = [];
  for (const item of wanted) {
    const productId = await ensureProduct(stripe, item, changes);
    const selling = new Set<string>();
    for (const price of item.prices) selling.add(await ensurePrice(stripe, item.key, productId, price, changes));
    if (archive) {
      for await (const other of stripe.prices.list({ product: productId, active: true, limit: 100 })) {
        if (selling.has(other.id)) continue;
        await stripe.prices.update(other.id, { active: false });
        changes.push({ key: item.key, change: "archived price", id: other.id });
      }
    }
  }
  return changes;
}

/** The programs: one product each (id = the price's lookup key), sold at one one-time price. */
export function setupCatalogue(
  stripe: Stripe,
  catalogue: readonly CatalogueProduct[],
  { archive = false }: SetupOptions = {},
): Promise<SetupChange[]> {
  const wanted = catalogue.map((product): Wanted => ({
    key: product.key,
    product: {
      id: product.lookupKey,
      name: product.name,
      description: product.description,
      metadata: { checkout_key: product.key },
    },
    prices: [
      {
        lookupKey: product.lookupKey,
        amount: product.priceCents,
        currency: product.currency,
        interval: null,
        metadata: { checkout_key: product.key },
      },
    ],
  }));
  return setup(stripe, wanted, archive);
}

/**
 * The coached offers content gives a way to pay: a product each, and by lookup key its price in
 * full, a monthly price for each plan whose payments are equal (a plan of differing payments, or
 * an offer sent at another price, is charged with inline prices of the product), and the
 * membership's monthly price. In the program's currency.
 */
export function setupOffers(
  stripe: Stripe,
  offers: readonly CatalogueOffer[],
  catalogue: readonly CatalogueProduct[],
  { archive = false }: SetupOptions = {},
): Promise<SetupChange[]> {
  const wanted: Wanted[] = [];
  for (const offer of offers) {
    const program = catalogue.find((p) => p.key === offer.productKey);
    if (!offer.payment || !program) continue;
    const keys = offerStripeKeys(offer.id);
    const metadata = { offer: offer.id, checkout_key: offer.productKey };
    const price = (lookupKey: string, amount: number, interval: "month" | null) => ({
      lookupKey,
      amount,
      currency: program.currency,
      interval,
      metadata,
    });
    const prices: Wanted["prices"] = [];
    if (offer.payment.inFull) prices.push(price(keys.inFull, offer.priceCents, null));
    for (const plan of offer.payment.plans) {
      const [first] = plan.instalmentsCents;
      if (first !== undefined && plan.instalmentsCents.every((amount) => amount === first)) {
        prices.push(price(keys.plan(plan.instalmentsCents.length), first, "month"));
      }
    }
    if (offer.payment.membership && offer.monthlyPriceCents) {
      prices.push(price(keys.membership, offer.monthlyPriceCents, "month"));
    }
    wanted.push({
      key: offer.id,
      product: {
        id: keys.product,
        name: `${offer.name}: coached offer`,
        description: offer.includes.join("; "),
        metadata,
      },
      prices,
    });
  }
  return setup(stripe, wanted, archive);
}
