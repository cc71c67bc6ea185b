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
 */
import type { CatalogueProduct } from "./catalogue.ts";
import type { Stripe } from "./stripe.ts";

export interface SetupChange {
  key: string;
  change: "created product" | "updated product" | "created price" | "replaced price" | "archived price";
  id: string;
}

async function ensureProduct(stripe: Stripe, product: CatalogueProduct, changes: SetupChange[]): Promise<string> {
  const wanted = { name: product.name, description: product.description, metadata: { checkout_key: product.key } };
  let existing: Stripe.Product | null = null;
  try {
    existing = await stripe.products.retrieve(product.lookupKey);
  } catch (error) {
    if ((error as { code?: string }).code !== "resource_missing") throw error;
  }
  if (!existing) {
    const created = await stripe.products.create({ id: product.lookupKey, ...wanted });
    changes.push({ key: product.key, change: "created product", id: created.id });
    return created.id;
  }
  if (
    existing.name !== wanted.name ||
    existing.description !== wanted.description ||
    existing.metadata?.checkout_key !== product.key ||
    !existing.active
  ) {
    await stripe.products.update(existing.id, { ...wanted, active: true });
    changes.push({ key: product.key, change: "updated product", id: existing.id });
  }
  return existing.id;
}

export interface SetupOptions {
  /** Archive the programs' active prices other than the catalogue's (after the functions' deploy). */
  archive?: boolean;
}

export async function setupCatalogue(
  stripe: Stripe,
  catalogue: readonly CatalogueProduct[],
  { archive = false }: SetupOptions = {},
): Promise<SetupChange[]> {
  const changes: SetupChange[] = [];
  for (const product of catalogue) {
    const productId = await ensureProduct(stripe, product, changes);
    const { data } = await stripe.prices.list({ lookup_keys: [product.lookupKey], limit: 1 });
    const current = data[0];
    const matches =
      current &&
      current.active &&
      current.unit_amount === product.priceCents &&
      current.currency === product.currency &&
      current.type === "one_time" &&
      (typeof current.product === "string" ? current.product : current.product.id) === productId;
    const selling = matches ? current.id : await replacePrice(stripe, product, productId, current, changes);
    if (archive) {
      for await (const other of stripe.prices.list({ product: productId, active: true, limit: 100 })) {
        if (other.id === selling) continue;
        await stripe.prices.update(other.id, { active: false });
        changes.push({ key: product.key, change: "archived price", id: other.id });
      }
    }
  }
  return changes;
}

/** A new price with the catalogue's amount, which takes the lookup key over from `current` (kept active). */
async function replacePrice(
  stripe: Stripe,
  product: CatalogueProduct,
  productId: string,
  current: Stripe.Price | undefined,
  changes: SetupChange[],
): Promise<string> {
  const price = await stripe.prices.create({
    product: productId,
    unit_amount: product.priceCents,
    currency: product.currency,
    lookup_key: product.lookupKey,
    transfer_lookup_key: true,
    metadata: { checkout_key: product.key },
  });
  changes.push({ key: product.key, change: current ? "replaced price" : "created price", id: price.id });
  return price.id;
}
