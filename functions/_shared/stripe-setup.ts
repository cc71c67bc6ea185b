/**
 * Makes a Stripe account sell the catalogue (functions/_shared/catalogue.ts): one product per
 * program (id = the price's lookup key) and one active price per lookup key with the catalogue's
 * amount. Idempotent: what already matches is left alone, so a second run changes nothing. A
 * changed amount gets a new price that takes over the lookup key (Stripe prices are immutable);
 * the old one is archived. Used by `npm run stripe:setup` and by the local stack for its stand-in.
 */
import type { CatalogueProduct } from "./catalogue.ts";
import type { Stripe } from "./stripe.ts";

export interface SetupChange {
  key: string;
  change: "created product" | "updated product" | "created price" | "replaced price";
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

export async function setupCatalogue(stripe: Stripe, catalogue: readonly CatalogueProduct[]): Promise<SetupChange[]> {
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
    if (matches) continue;
    const price = await stripe.prices.create({
      product: productId,
      unit_amount: product.priceCents,
      currency: product.currency,
      lookup_key: product.lookupKey,
      transfer_lookup_key: true,
      metadata: { checkout_key: product.key },
    });
    if (current) await stripe.prices.update(current.id, { active: false });
    changes.push({ key: product.key, change: current ? "replaced price" : "created price", id: price.id });
  }
  return changes;
}
